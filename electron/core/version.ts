/** The core's version, as /version, /v1/system and the OpenAPI document say it. */
export const CORE_VERSION = '0.1.0';
