import pino from 'pino';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { Notifier } from '../../src/notify/notifier.js';
import { WebhookDelivery } from '../../src/notify/webhook-delivery.js';
import { parseWebhookUrl } from '../../src/notify/webhook-target.js';
import { eventually } from '../watch/daemon-process.js';
import { FakeClock } from '../watch/fake-clock.js';
import { eventsOf, startReceiver, type WebhookReceiver } from '../watch/webhook-receivers.js';

const silent = pino({ level: 'silent' });

describe('Notifier and WebhookDelivery (local receivers)', () => {
  const started: WebhookReceiver[] = [];
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
    await Promise.all(started.splice(0).map((receiver) => receiver.close()));
  });

  it('checks the loop’s heartbeat on its timer: stuck once, recovered once', async () => {
    const hook = await startReceiver('ok', 'heartbeatToken000000001');
    started.push(hook);
    const clock = new FakeClock();
    let health = { alive: true, detail: 'idle' };
    const notifier = new Notifier({
      targets: [parseWebhookUrl(hook.url, 'test')],
      identity: { owner: 'team', instance: null, service: 'api.edge.example.com' },
      mode: 'enforce',
      statusPageUrl: null,
      timeoutMs: 5000,
      retries: 0,
      expiryWindowMs: 0,
      registry: new Registry(),
      logger: silent,
      clock,
      random: () => 0.5,
      scrub: (text) => text,
      health: () => health,
      healthCheckMs: 10_000,
    });
    closers.push(() => notifier.close(0));
    notifier.start();

    await clock.advance(10_000);
    health = { alive: false, detail: 'stuck: reconcile running for 901 s, over 3x --interval' };
    await clock.advance(10_000);
    await clock.advance(10_000);
    await clock.advance(10_000);
    health = { alive: true, detail: 'idle' };
    await clock.advance(10_000);
    await eventually(() => (hook.bodies.length >= 2 ? true : undefined));

    expect(eventsOf(hook)).toEqual(['daemon_stuck', 'daemon_recovered']);
    expect(notifier.status()).toMatchObject({ sent: 2, delivered: 2, failed: 0 });
  });

  it('keeps at most queueLimit posts waiting for a receiver that hangs, dropping the oldest, and returns at once', async () => {
    const hang = await startReceiver('hang', 'hangingToken00000000001');
    started.push(hang);
    const failures: string[] = [];
    const delivery = new WebhookDelivery({
      targets: [parseWebhookUrl(hang.url, 'test')],
      timeoutMs: 60_000,
      retries: 0,
      queueLimit: 2,
      random: () => 0.5,
      logger: silent,
      onDelivered: () => {},
      onFailed: (_target, reason) => failures.push(reason),
    });
    closers.push(() => delivery.close(0));

    for (let index = 1; index <= 5; index += 1) delivery.send(() => JSON.stringify({ index }));
    const queued = delivery.pending;
    await eventually(() => (hang.open() === 1 ? true : undefined));

    // One in flight, two waiting; the two oldest waiting were dropped.
    expect(queued).toBe(3);
    expect(failures).toEqual(['dropped', 'dropped']);
    expect(hang.bodies).toEqual([JSON.stringify({ index: 1 })]);
  });
});
