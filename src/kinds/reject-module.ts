import type { ModuleTarget } from './kind.js';
import { KindError } from './kind-error.js';
import type { KindName } from './kind-name.js';

/** `moduleRequest`/`moduleReadRequest` of a kind without modules: asking is a programming error. */
export function rejectModule(kind: KindName): (target: ModuleTarget, module: string) => never {
  return (target, module) => {
    throw new KindError('unknown_module', `${kind} has no module "${module}"`, { kind, id: target.id });
  };
}
