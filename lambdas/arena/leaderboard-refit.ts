/**
 * The account's arena leaderboard, fitted from its stored fights (store/arena-sessions.ts):
 * every ballot of every fight that started in the range becomes a LeaderboardBallot (models as
 * they answered, the displayed order, the choice, the judge's model, the answers' length and
 * markdown), then the Bradley–Terry fit with its bootstrap (leaderboard-fit.ts), the position-bias
 * report and judge agreement. It runs off the request path (leaderboard-call.ts), in chunks of
 * resamples that yield between them, so one fit never holds an event loop for long.
 */
import { setImmediate as yieldToOthers } from 'node:timers/promises';
import { arenaSessionsBetween, type AccountReads, type ArenaSessionRecord } from '../store/arena-sessions.js';
import { judgeAgreement } from './judge-agreement.js';
import { DEFAULT_LEADERBOARD_LIMITS, type LeaderboardBallot } from './leaderboard-ballots.js';
import {
  completeLeaderboardFit,
  prepareLeaderboardFit,
  resampleLeaderboard,
  type LeaderboardFit,
  type LeaderboardReplicate,
} from './leaderboard-fit.js';
import { positionBias, type PositionBiasReport } from './position-bias.js';
import type { JudgeAgreementReport } from './judge-agreement.js';

export interface LeaderboardQuery {
  /** UTC days, YYYY-MM-DD, both included. */
  readonly from: string;
  readonly to: string;
  readonly styleControl: boolean;
}

export interface LeaderboardResult {
  readonly fit: LeaderboardFit;
  readonly positionBias: PositionBiasReport;
  readonly judgeAgreement: JudgeAgreementReport;
  /** Fights read, and whether the ballot cap stopped the reading (the oldest fights are in, the newest not). */
  readonly sessions: number;
  readonly truncated: boolean;
}

/** The bootstrap's resamples (issue 22: 1,000), run this many at a time between yields. */
export const LEADERBOARD_RESAMPLES = 1_000;
const RESAMPLE_CHUNK = 25;

/** `db` reads the account's session records: its tenant session, on the route. */
export async function refitLeaderboard(
  accountId: string,
  query: LeaderboardQuery,
  db: AccountReads,
): Promise<LeaderboardResult> {
  const ballots: LeaderboardBallot[] = [];
  let sessions = 0;
  let truncated = false;
  for await (const record of arenaSessionsBetween(accountId, query.from, `${query.to}T23:59:59.999Z`, db)) {
    if (record.mode !== 'fight') continue;
    const more = ballotsOf(record);
    if (ballots.length + more.length > DEFAULT_LEADERBOARD_LIMITS.maxBallots) {
      truncated = true;
      break;
    }
    ballots.push(...more);
    sessions++;
  }
  const prepared = prepareLeaderboardFit(ballots, {
    seed: `${accountId}:${query.from}:${query.to}`,
    resamples: LEADERBOARD_RESAMPLES,
    styleControl: query.styleControl,
  });
  const replicates: LeaderboardReplicate[] = [];
  for (let first = 0; first < LEADERBOARD_RESAMPLES; first += RESAMPLE_CHUNK) {
    await yieldToOthers();
    replicates.push(...resampleLeaderboard(prepared, first, Math.min(RESAMPLE_CHUNK, LEADERBOARD_RESAMPLES - first)));
  }
  return {
    fit: completeLeaderboardFit(prepared, replicates),
    positionBias: positionBias(ballots),
    judgeAgreement: judgeAgreement(ballots),
    sessions,
    truncated,
  };
}

/**
 * A fight's ballots in the leaderboard's terms. Each agent stands for the model that answered
 * for it that round (a fallback route's, if one served); a ballot whose answers or judge have no
 * model on record (a turn that failed) is left out.
 */
export function ballotsOf(record: ArenaSessionRecord): LeaderboardBallot[] {
  const planned = new Map(record.agents.map(({ agent, model }) => [agent, model]));
  return record.ballots.flatMap((ballot) => {
    const round = record.roundResults.find((result) => result.round === ballot.round);
    const answered = new Map((round?.answered ?? []).map((answer) => [answer.agent, answer]));
    const shown = ballot.order.map((agent) => answered.get(agent));
    const judge = answered.get(ballot.voter)?.model ?? planned.get(ballot.voter);
    if (!judge || shown.some((answer) => answer === undefined)) return [];
    const answers = shown as NonNullable<(typeof shown)[number]>[];
    const choice = ballot.choice === null ? null : ballot.order.indexOf(ballot.choice);
    const hasStyle = answers.every((answer) => answer.markdown !== undefined);
    return [
      {
        order: answers.map((answer) => answer.model),
        choice: choice === null || choice < 0 ? null : choice,
        voter: judge,
        group: `${record.sessionId}:${ballot.round}`,
        ...(hasStyle
          ? { style: { tokens: answers.map((a) => a.chars), markdown: answers.map((a) => a.markdown ?? 0) } }
          : {}),
      },
    ];
  });
}
