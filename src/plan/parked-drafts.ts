import { encodeMetadata } from '../kinds/ownership-marker.js';
import {
  type DraftAction,
  type DraftChange,
  type DraftParts,
  draftAction,
  type PlainDraft,
} from './draft-action.js';
import type { Drafts } from './drafts.js';
import type { Edge } from './ordering/dependency-edges.js';
import type { ParkingDecision } from './ordering/park-moves.js';
import { pendingPathSegment } from './pending-id.js';
import type { PlanInputs } from './plan-inputs.js';
import { NO_SECRETS } from './spec-fields.js';
import { actsOn, type ItemTakeover, takesItemFor } from './unique-items.js';

/** The drafts once a move is split, with the edges parking decided between its actions. */
export interface ParkedDrafts {
  readonly drafts: Drafts;
  readonly edges: readonly Edge[];
}

/**
 * Drafts what parking decided for one move (ordering rule 8,
 * ordering/park-moves.ts): the creates of its temporary denies, the move
 * (two PATCHes through a parking spot, or the one PATCH whose target the
 * denies hold), the denies' deletes, in that order where the move was, in
 * the plan and in its change; and the decision's waits as edges between
 * them.
 */
export function draftParkedMove(drafts: Drafts, decision: ParkingDecision, inputs: PlanInputs): ParkedDrafts {
  const { kind, move, spot, guards } = decision;
  const common = {
    kind: kind.name,
    name: move.name,
    change: move.change,
    secrets: NO_SECRETS,
    source: move.source,
  };
  const parts: DraftParts[] = [];
  for (const guard of guards) {
    const marker = { owner: inputs.owner, name: guard.name };
    parts.push({
      ...common,
      key: guard.createKey,
      op: 'create',
      request: kind.createRequest(guard.spec, encodeMetadata(undefined, marker)),
      marker,
      after: guard.spec,
      takesKey: guard.uniqueKey,
    });
  }
  const body = move.request.body as Readonly<Record<string, unknown>>;
  if (spot !== undefined) {
    parts.push({
      ...common,
      key: spot.fromSpotKey,
      op: 'update',
      request: kind.updateRequest(spot.objectId, { [spot.field]: body[spot.field] }),
      objectId: spot.objectId,
      before: spot.spec,
      after: move.after,
      parking: { unparks: move.key },
      freesKey: spot.uniqueKey,
      takesKey: move.takesKey,
    });
  }
  for (const guard of guards) {
    parts.push({
      ...common,
      key: guard.deleteKey,
      op: 'delete',
      request: kind.deleteRequest(pendingPathSegment(guard.createKey)),
      before: guard.spec,
      freesKey: guard.uniqueKey,
    });
  }
  const drafted = parts.map((part) => draftAction(part));
  const moves: PlainDraft[] =
    spot === undefined
      ? [{ ...move, parking: { guardedBy: decision.guardedBy ?? move.key } }]
      : [
          {
            ...move,
            request: kind.updateRequest(spot.objectId, { ...body, [spot.field]: spot.value }),
            after: spot.spec,
            takesKey: spot.uniqueKey,
          },
          drafted[guards.length] as PlainDraft,
        ];
  const actions = [
    ...drafted.slice(0, guards.length),
    ...moves,
    ...drafted.slice(drafted.length - guards.length),
  ];
  const byKey = new Map(actions.map((action) => [action.key, action]));
  const edges = decision.waits.map(({ waiter, key }) => ({
    waiter: typeof waiter === 'string' ? (byKey.get(waiter) as PlainDraft) : waiter,
    key,
  }));
  return { drafts: replaceAction(drafts, move, actions), edges };
}

/** The drafts with `actions` where `move` was, in the plan and in its change. */
function replaceAction(drafts: Drafts, move: PlainDraft, actions: readonly PlainDraft[]): Drafts {
  const at = drafts.actions.indexOf(move);
  const keys = actions.map((action) => action.key);
  const old = drafts.changes.find((change) => change.address === move.change);
  let changes = drafts.changes;
  let protectedChanges = drafts.protectedChanges;
  if (old !== undefined) {
    const position = old.actionKeys.indexOf(move.key);
    const actionKeys = [...old.actionKeys];
    actionKeys.splice(position, 1, ...keys);
    const replaced: DraftChange = { ...old, actionKeys } as DraftChange;
    changes = drafts.changes.map((change) => (change === old ? replaced : change));
    if (protectedChanges.has(old))
      protectedChanges = new Set([...protectedChanges].map((change) => (change === old ? replaced : change)));
  }
  return {
    ...drafts,
    actions: [...drafts.actions.slice(0, at), ...actions, ...drafts.actions.slice(at + 1)],
    changes,
    protectedChanges,
    takeovers: drafts.takeovers.map((takeover) => splitInTakeover(takeover, move, actions)),
  };
}

/**
 * A takeover with `move` split into `actions` as unique-items.ts would have
 * found them: a taker's writes of its change but deletes, a release's writes
 * of the object.
 */
function splitInTakeover(
  takeover: ItemTakeover,
  move: PlainDraft,
  actions: readonly PlainDraft[],
): ItemTakeover {
  const split = (
    list: readonly DraftAction[],
    keep: (action: PlainDraft) => boolean,
  ): readonly DraftAction[] => {
    const at = list.indexOf(move);
    return at === -1 ? list : [...list.slice(0, at), ...actions.filter(keep), ...list.slice(at + 1)];
  };
  return {
    takers: split(takeover.takers, (action) => takesItemFor(action, move.change)),
    releases: split(takeover.releases, (action) => actsOn(action, move.objectId)),
  };
}
