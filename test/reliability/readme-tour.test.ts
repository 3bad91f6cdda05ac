import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * The README's five-minute tour as a user runs it: `npx edgesync emulator … &`
 * in a shell, the commands against it, then `kill %1`. The shell is bash
 * without job control, as in a script: there `kill %1` signals npx alone
 * (npx runs `sh -c edgesync`, which runs node), which used to leave the
 * emulator serving the port. Port 0 instead of the README's 8080, so runs
 * never collide; the URL is read from the emulator's first line.
 */
const TOUR = `
set -u
cd "$ROOT"
npx edgesync emulator --seed examples/emulator-seed.yaml --api-key dev-key --port 0 > "$OUT/emulator.out" 2> "$OUT/emulator.err" &
for attempt in $(seq 1 600); do
  URL=$(head -n 1 "$OUT/emulator.out" | grep '^http' || true)
  [ -n "$URL" ] && break
  sleep 0.1
done
echo "$URL" > "$OUT/url"
export EDGE_API_URL="$URL" EDGE_API_KEY=dev-key
npx edgesync plan examples/manifests > "$OUT/plan.txt"
npx edgesync plan examples/manifests --format json > "$OUT/plan.json"
(umask 077; head -c 32 /dev/urandom | base64 > "$OUT/plan.key")
npx edgesync plan examples/manifests --out "$OUT/saved-plan.json" --plan-key-file "$OUT/plan.key" > /dev/null 2>&1
npx edgesync apply examples/manifests --yes --log-format json > "$OUT/apply.out" 2> "$OUT/apply.log"
npx edgesync apply --plan "$OUT/saved-plan.json" --plan-key-file "$OUT/plan.key" examples/manifests --yes > "$OUT/apply-plan.out" 2> "$OUT/apply-plan.err"
echo $? > "$OUT/apply-plan.code"
npx edgesync plan examples/manifests --detailed-exitcode > "$OUT/replan.txt"
echo $? > "$OUT/replan.code"
kill %1
`;

function runTour(out: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done) => {
    execFile(
      'bash',
      ['-c', TOUR],
      {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? out, ROOT, OUT: out },
        timeout: 180_000,
      },
      (error, _stdout, stderr) => {
        done({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stderr });
      },
    );
  });
}

/** Whether something still answers at `url`. */
async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(2_000) });
    return true;
  } catch {
    return false;
  }
}

describe('the README tour, run in a shell as a user does', () => {
  let out: string;

  beforeEach(async () => {
    out = await mkdtemp(join(tmpdir(), 'edgesync-tour-'));
  });

  afterEach(async () => {
    await rm(out, { recursive: true, force: true });
  });

  it('plans every request the apply sends (the follow-up update too), the saved plan is then already applied, and kill %1 stops the emulator', async () => {
    const tour = await runTour(out);
    const url = (await readFile(join(out, 'url'), 'utf8')).trim();
    const planText = await readFile(join(out, 'plan.txt'), 'utf8');
    const plan = JSON.parse(await readFile(join(out, 'plan.json'), 'utf8')) as {
      actions: { key: string; op: string; change: string }[];
      changes: { address: string; op: string; reason: string }[];
    };
    const finished = (await readFile(join(out, 'apply.log'), 'utf8'))
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg?: string; action?: string })
      .filter((event) => event.msg === 'action finished')
      .map((event) => event.action);
    const replanCode = (await readFile(join(out, 'replan.code'), 'utf8')).trim();
    const applyPlan = {
      code: (await readFile(join(out, 'apply-plan.code'), 'utf8')).trim(),
      stdout: await readFile(join(out, 'apply-plan.out'), 'utf8'),
      stderr: await readFile(join(out, 'apply-plan.err'), 'utf8'),
    };
    // The emulator notices within a second that npx is gone; wait for that, boundedly.
    let stillAnswering = await answers(url);
    for (let attempt = 0; attempt < 100 && stillAnswering; attempt += 1) {
      await new Promise((wait) => setTimeout(wait, 100));
      stillAnswering = await answers(url);
    }
    const emulatorLog = await readFile(join(out, 'emulator.err'), 'utf8');

    expect(tour.code, tour.stderr).toBe(0);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // The plan names the follow-up update that the apply sends after creating the address.
    expect(planText).toContain(
      'Plan: 4 to create (1 then updated), 0 to update, 0 to replace, 0 to delete, 1 to adopt, 6 module(s) to write.',
    );
    expect(planText).toContain(
      '# reserved_addrs.ssh-bastion will be created — not in the live account; then updated to set endpoint_configuration_id (a create request cannot carry it)',
    );
    expect(plan.actions).toContainEqual(
      expect.objectContaining({
        key: 'update:reserved_addrs.ssh-bastion',
        op: 'update',
        change: 'reserved_addrs.ssh-bastion',
      }),
    );
    // Every request the apply ran was in the plan, and nothing planned was left out.
    expect([...finished].sort()).toEqual(plan.actions.map((action) => action.key).sort());
    // The saved plan, applied after the change went live, is checked and found already applied.
    expect(applyPlan.code, applyPlan.stderr).toBe('0');
    expect(applyPlan.stdout).toContain('Already applied: the account already holds every change of');
    expect(applyPlan.stderr).toContain('12 action(s) already applied');
    expect(replanCode).toBe('0');
    expect(stillAnswering).toBe(false);
    expect(emulatorLog).toContain('edgesync emulator: stopped');
  }, 240_000);
});
