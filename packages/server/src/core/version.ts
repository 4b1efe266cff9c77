/** Roost's version, as `roost --version`, the start log, /openapi.json and the dashboard say it. */
export const ROOST_VERSION = '0.1.0';
