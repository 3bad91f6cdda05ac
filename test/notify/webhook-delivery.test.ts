import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { type DeliveryFailure, WebhookDelivery } from '../../src/notify/webhook-delivery.js';
import { parseWebhookUrl } from '../../src/notify/webhook-target.js';
import { startTricklingPeer, type TricklingPeer } from '../support/trickling-peer.js';

const silent = pino({ level: 'silent' });

describe('WebhookDelivery against receivers that trickle or stay silent', () => {
  let peers: TricklingPeer[] = [];
  afterEach(async () => {
    await Promise.all(peers.map((peer) => peer.close()));
    peers = [];
  });

  function deliveryTo(
    peer: TricklingPeer,
    timeoutMs: number,
  ): { delivery: WebhookDelivery; outcome: Promise<'delivered' | DeliveryFailure> } {
    let settle: (outcome: 'delivered' | DeliveryFailure) => void = () => undefined;
    const outcome = new Promise<'delivered' | DeliveryFailure>((resolve) => {
      settle = resolve;
    });
    const delivery = new WebhookDelivery({
      targets: [parseWebhookUrl(`${peer.url}/hooks/T0/B0/secret`, 'test')],
      timeoutMs,
      retries: 0,
      random: () => 0.5,
      logger: silent,
      onDelivered: () => settle('delivered'),
      onFailed: (_target, reason) => settle(reason),
    });
    return { delivery, outcome };
  }

  it('takes a 2xx whose body trickles on as delivered, and closes that connection', async () => {
    const peer = await startTricklingPeer();
    peers.push(peer);
    const { delivery, outcome } = deliveryTo(peer, 600_000);

    delivery.send(() => '{"text":"x"}');

    expect(await outcome).toBe('delivered');
    await peer.cutOff;
    await delivery.close(0);
  });

  it('gives up on a receiver that never answers at its timeout', async () => {
    const peer = await startTricklingPeer({ silent: true });
    peers.push(peer);
    const { delivery, outcome } = deliveryTo(peer, 300);

    delivery.send(() => '{"text":"x"}');

    expect(await outcome).toBe('unreachable');
    await peer.cutOff;
    await delivery.close(0);
  });

  it('lets close() end a post to a silent receiver at once, past any timeout', async () => {
    const peer = await startTricklingPeer({ silent: true });
    peers.push(peer);
    const { delivery } = deliveryTo(peer, 600_000);
    delivery.send(() => '{"text":"x"}');
    await peer.answering;

    await delivery.close(0);

    expect(delivery.pending).toBe(0);
    await peer.cutOff;
  });
});
