/**
 * What the status keeps of a V3 position strategy's marks (one per run): the first mark that held anything (the
 * tokens it started with, for "against holding"), the latest, and the time in range. The time in range comes from
 * the pool's own seconds-inside counter for the range, read at each mark: between two marks of the same position
 * the counter's difference is exactly the time the price spent inside, whatever happened between the runs. The
 * time between a position and the one a re-range opened after it is not counted either way.
 */
import type { PositionMark } from '../ledger/marks.ts';

export type PositionTrack = {
  first: PositionMark;
  latest: PositionMark;
  /** Seconds the price spent inside the range, of `observedSeconds` between marks of one position. */
  insideSeconds: number;
  observedSeconds: number;
};

const holdsAnything = (mark: PositionMark) => mark.amount0 > 0n || mark.amount1 > 0n;

export function foldPositionMark(track: PositionTrack | undefined, mark: PositionMark): PositionTrack {
  if (!track) return { first: mark, latest: mark, insideSeconds: 0, observedSeconds: 0 };
  const previous = track.latest;
  const first = holdsAnything(track.first) || !holdsAnything(mark) ? track.first : mark;
  const samePosition =
    previous.positionId === mark.positionId &&
    previous.tickLower === mark.tickLower &&
    previous.tickUpper === mark.tickUpper &&
    mark.blockTime > previous.blockTime;
  if (!samePosition || previous.secondsInside === undefined || mark.secondsInside === undefined) return { ...track, first, latest: mark };
  // A uint32 counter: its difference wraps as the pool's does.
  const inside = (mark.secondsInside - previous.secondsInside) >>> 0;
  return {
    first,
    latest: mark,
    insideSeconds: track.insideSeconds + Math.min(inside, mark.blockTime - previous.blockTime),
    observedSeconds: track.observedSeconds + (mark.blockTime - previous.blockTime),
  };
}
