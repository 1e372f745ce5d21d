import { Type, type Static } from '@sinclair/typebox';

/** A region: one engine the core drives (SPEC "Engines and regions"). */
export const Region = Type.Object({
  name: Type.String({ description: "What config.region and a volume's region name; the first is the default." }),
  engine: Type.Object({
    name: Type.String({ description: 'The driver: docker (Docker or Podman through the Docker API).' }),
    version: Type.Union([Type.String(), Type.Null()], { description: "The engine's version; null while it is away." }),
    up: Type.Boolean(),
    reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it is away; null while up.' }),
    url: Type.String({ description: 'Where it is: unix://, tcp:// or ssh://.' }),
    found_by: Type.String({ description: 'How the core found it, or that --engine gave it.' }),
  }),
  boxes: Type.Integer({ description: 'Boxes whose config.region it is.' }),
  cpus: Type.Union([Type.Integer(), Type.Null()], { description: "The engine's CPUs; null while it is away." }),
  memory_bytes: Type.Union([Type.Integer(), Type.Null()], {
    description: "The engine's memory; null while it is away.",
  }),
});
export type Region = Static<typeof Region>;

export const RegionList = Type.Object({ items: Type.Array(Region) });
export type RegionList = Static<typeof RegionList>;
