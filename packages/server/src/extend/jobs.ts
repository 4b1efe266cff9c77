/** Placeholder of the jobs part of the extension API (extend/extension.ts): its owner fills it in. */
// biome-ignore lint/suspicious/noEmptyInterface: to be filled in (issue 40)
export interface ExtensionJobs {}
