/** The images an engine keeps, makes and builds, as the core sees them (ContainerEngine's image calls). */

export interface ImageInfo {
  id: string;
  /** The image with everything below it. */
  sizeBytes: number;
  labels: Record<string, string>;
}

export interface ImageDetails extends ImageInfo {
  /** Filesystem layers in the image's chain (the engine caps a container's depth). */
  layers: number;
  /** The image it was committed on, when the engine knows. */
  parentId: string | null;
  config: ImageConfig;
}

/** What a container started from the image runs, as the image says. */
export interface ImageConfig {
  cmd: string[] | null;
  entrypoint: string[] | null;
  env: string[];
  workingDir: string;
  user: string;
}

export interface ImageImportOptions {
  labels: Record<string, string>;
  /** The run configuration to give the new image (an imported tar has none). */
  config?: ImageConfig;
}

export interface BuildOptions {
  /** The Dockerfile's path in the context. */
  dockerfile: string;
  buildArgs: Record<string, string>;
  target?: string;
  /** Labels of the image made. */
  labels: Record<string, string>;
}

/** A line of a build's output: a step begins (`2/4 RUN make`), a piece of its output, or the failure. */
export interface BuildLine {
  step?: string;
  stream?: string;
  error?: string;
}
