import { BOXDESK_VERSION } from '../../shared/version';

/** The core's version, as /version, /v1/system and the OpenAPI document say it. */
export const CORE_VERSION = BOXDESK_VERSION;
