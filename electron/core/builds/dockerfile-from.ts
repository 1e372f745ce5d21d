import { ApiError } from '../../../shared/errors';

/** `FROM [--platform=…] boxdesk/<base>[:latest] [AS stage]`: the image part is group 2. */
const FROM_LINE =
  /^(\s*FROM\s+(?:--\S+\s+)*)(boxdesk\/([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(?::latest)?)(\s+AS\s+\S+)?\s*$/i;
/**
 * `boxdesk/<name>` anywhere else (`COPY --from=`, an ARG default, a FROM continued on the next
 * line): the engine would pull it from a registry, where anyone may own that name.
 */
const BOXDESK_ELSEWHERE = /(^|[\s=:"'])boxdesk\/[a-z0-9]/i;

export interface BaseReference {
  /** The base's name. */
  base: string;
  /** Its image as the engine knows it (the id the FROM line now names). */
  image: string;
}

/**
 * The Dockerfile with each `FROM boxdesk/<base>` naming that base's image id instead, so the
 * engine's builder finds it among the images it has, offline (no tag is added to the engine).
 * `resolve` answers a base's image, or throws when there is no such base. Other FROM lines are
 * left as they are (the engine pulls them if it can).
 */
export async function resolveBoxdeskFrom(
  dockerfile: string,
  resolve: (base: string) => Promise<string>,
): Promise<{ text: string; references: BaseReference[] }> {
  const references: BaseReference[] = [];
  const lines = dockerfile.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const match = FROM_LINE.exec(line.replace(/\r$/, ''));
    if (!match) {
      if (!/^\s*#/.test(line) && BOXDESK_ELSEWHERE.test(line))
        throw new ApiError(
          'invalid_body',
          `line ${i + 1} of the Dockerfile (${line.trim()}) names boxdesk/ where Boxdesk does not read it; a base is named only on a line of its own, FROM boxdesk/<base> [AS name], with a base name from GET /v1/bases (no tag but :latest); COPY --from takes that stage's name`,
        );
      continue;
    }
    const base = match[3]!.toLowerCase();
    let image: string;
    try {
      image = await resolve(base);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new ApiError('invalid_body', `line ${i + 1} of the Dockerfile: FROM boxdesk/${base}: ${why}`);
    }
    references.push({ base, image });
    lines[i] = `${match[1]}${image}${match[5] ?? ''}`;
  }
  return { text: lines.join('\n'), references };
}

/** A step as the builder names it, with the image ids FROM lines were given put back as `boxdesk/<base>`. */
export function describeStep(step: string, references: readonly BaseReference[]): string {
  let out = step;
  for (const { base, image } of references) out = out.split(image).join(`boxdesk/${base}`);
  return out;
}
