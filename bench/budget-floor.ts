/**
 * The least time, in seconds, that `count` requests take under a rolling
 * window of `requests` per `windowMs`: request k (0-based) cannot be sent
 * before floor(k / requests) whole windows have passed, so the last one
 * waits floor((count - 1) / requests) windows. Round trips are left out,
 * which is why it is a floor.
 */
export function rollingWindowFloorSeconds(count: number, requests = 120, windowMs = 60_000): number {
  if (count <= 0) return 0;
  return (Math.floor((count - 1) / requests) * windowMs) / 1000;
}
