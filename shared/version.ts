/** Boxdesk's version: the core's (/version, /v1/system, the OpenAPI document) and the CLI's (`box --version`). Kept equal to package.json's. */
export const BOXDESK_VERSION = '0.1.0';
