/** Types of edgesync-action.mjs, for its tests. */
export const COMMANDS: readonly string[];
export const FLOWS: readonly string[];
export const PLAN_MARKER: string;
export const MERGE_MARKER: string;
export interface ActionInputs {
  readonly command: string;
  readonly flow: string;
  readonly manifests: string;
  readonly owner: string;
  readonly daemonUrl: string;
  readonly instance: string;
  readonly waitTimeout: string;
  readonly planDir: string;
  readonly cli: string;
  readonly image: string;
  readonly pull: string;
}
export function readInputs(env: Readonly<Record<string, string | undefined>>): ActionInputs;
export function fenced(text: string): string;
export function main(
  phase: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number>;
