import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../../shared/errors';
import { describeStep, resolveBoxdeskFrom } from './dockerfile-from';

const images: Record<string, string> = { py: 'sha256:aaa', default: 'sha256:bbb' };
const resolve = async (base: string) => {
  const image = images[base];
  if (!image) throw new ApiError('not_found', `base "${base}" not found`);
  return image;
};

test('FROM boxdesk/<base> becomes the base image id; stages, flags and other FROM lines are kept', async () => {
  const { text, references } = await resolveBoxdeskFrom(
    [
      'FROM boxdesk/py AS build',
      'RUN make',
      'from --platform=linux/amd64 boxdesk/default:latest',
      'FROM debian:12',
      'COPY --from=build /out /out',
    ].join('\n'),
    resolve,
  );
  assert.equal(
    text,
    [
      'FROM sha256:aaa AS build',
      'RUN make',
      'from --platform=linux/amd64 sha256:bbb',
      'FROM debian:12',
      'COPY --from=build /out /out',
    ].join('\n'),
  );
  assert.deepEqual(references, [
    { base: 'py', image: 'sha256:aaa' },
    { base: 'default', image: 'sha256:bbb' },
  ]);
  assert.equal(describeStep('1/3 FROM sha256:aaa AS build', references), '1/3 FROM boxdesk/py AS build');
});

test('an unknown base or a tag other than latest is a 400 naming the line', async () => {
  await assert.rejects(resolveBoxdeskFrom('# x\nFROM boxdesk/nope\n', resolve), (err: ApiError) => {
    assert.equal(err.code, 'invalid_body');
    assert.match(err.message, /^line 2 of the Dockerfile: FROM boxdesk\/nope: base "nope" not found/);
    return true;
  });
  await assert.rejects(resolveBoxdeskFrom('FROM boxdesk/py:3.12\n', resolve), /line 1 .*no tag but :latest/);
});

test('boxdesk/ anywhere but a FROM line of its own is a 400: the engine would pull it from a registry', async () => {
  for (const [text, line] of [
    ['FROM boxdesk/py AS b\nCOPY --from=boxdesk/py /x /x\n', 2],
    ['ARG BASE=boxdesk/py\nFROM $BASE\n', 1],
    ['FROM \\\n  boxdesk/py\n', 2],
    ['FROM "boxdesk/py"\n', 1],
  ] as const) {
    await assert.rejects(resolveBoxdeskFrom(text, resolve), (err: ApiError) => {
      assert.equal(err.code, 'invalid_body');
      assert.match(
        err.message,
        new RegExp(`^line ${line} of the Dockerfile .*names boxdesk/ where Boxdesk does not read it`),
      );
      return true;
    });
  }
  // A comment may say anything.
  assert.equal((await resolveBoxdeskFrom('# from boxdesk/py, once\nFROM scratch\n', resolve)).references.length, 0);
});
