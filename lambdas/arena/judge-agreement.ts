/**
 * How often do judges agree? (issue 22, section 3.) Judges agree when, having seen the same two
 * models' answers in the same round, they prefer the same one.
 *
 * - A ballot's preferences are those its vote implies (leaderboard-ballots.ts): the chosen
 *   answer's model over each other model on the ballot, once per model pair (a preference
 *   between two models is one bit, however many answers each had). Answers not chosen are not
 *   ordered, so a judge states a preference on a pair only when it chose one of the two.
 * - Only ballots of one group (the same session and round, so the same answers) are compared.
 *   A judge's first ballot in a group counts (an abstention too), as the tally counts a voter's first vote; later
 *   ones are counted as `repeated`. Ballots without a group and abstentions are left out.
 * - For each model pair in a group, every two judges that both stated a preference on it make
 *   one judged pair; it agrees when they preferred the same model. `rate` = agreed / pairs over
 *   all groups; per judge, the judged pairs it took part in.
 *
 * Chance is 0.5: two judges choosing at random among the answers, given that both chose one of
 * the two models, prefer the same one half the time. Linear in the ballots' answers: a pair's
 * agreements are counted from how many judges preferred each side, never judge by judge.
 */

import {
  ballotComparisons,
  checkLeaderboardBallots,
  DEFAULT_LEADERBOARD_LIMITS,
  type LeaderboardBallot,
  type LeaderboardLimits,
} from './leaderboard-ballots.js';

export interface JudgeRecord {
  readonly voter: string;
  readonly pairs: number;
  readonly agreed: number;
  /** agreed / pairs; null without pairs. */
  readonly rate: number | null;
}

export interface JudgeAgreementReport {
  /** Groups in which some model pair was judged by two judges. */
  readonly groups: number;
  readonly ungrouped: number;
  readonly repeated: number;
  readonly pairs: number;
  readonly agreed: number;
  readonly rate: number | null;
  /** Judges with at least one judged pair, by voter id. */
  readonly judges: JudgeRecord[];
}

export function judgeAgreement(
  ballots: readonly LeaderboardBallot[],
  limits: LeaderboardLimits = DEFAULT_LEADERBOARD_LIMITS,
): JudgeAgreementReport {
  checkLeaderboardBallots(ballots, limits);
  let ungrouped = 0;
  let repeated = 0;
  /** group -> model pair ("a\0b", a < b) -> the judges preferring a, and those preferring b. */
  const groups = new Map<string, { seen: Set<string>; pairs: Map<string, [string[], string[]]> }>();
  for (const ballot of ballots) {
    if (ballot.group === undefined) {
      ungrouped++;
      continue;
    }
    const group = groups.get(ballot.group) ?? { seen: new Set<string>(), pairs: new Map() };
    groups.set(ballot.group, group);
    if (group.seen.has(ballot.voter)) {
      repeated++;
      continue;
    }
    group.seen.add(ballot.voter);
    const losers = new Set(ballotComparisons(ballot).map((c) => c.loser));
    const winner = ballot.choice === null ? '' : ballot.order[ballot.choice]!;
    for (const loser of losers) {
      const [a, b] = winner < loser ? [winner, loser] : [loser, winner];
      const sides = group.pairs.get(`${a}\0${b}`) ?? [[], []];
      group.pairs.set(`${a}\0${b}`, sides);
      sides[winner === a ? 0 : 1].push(ballot.voter);
    }
  }
  const judges = new Map<string, { pairs: number; agreed: number }>();
  let pairs = 0;
  let agreed = 0;
  let groupsCompared = 0;
  for (const group of groups.values()) {
    let compared = false;
    for (const sides of group.pairs.values()) {
      const total = sides[0].length + sides[1].length;
      if (total < 2) continue;
      compared = true;
      pairs += choose2(total);
      agreed += choose2(sides[0].length) + choose2(sides[1].length);
      for (const side of sides)
        for (const voter of side) {
          const record = judges.get(voter) ?? { pairs: 0, agreed: 0 };
          record.pairs += total - 1;
          record.agreed += side.length - 1;
          judges.set(voter, record);
        }
    }
    if (compared) groupsCompared++;
  }
  return {
    groups: groupsCompared,
    ungrouped,
    repeated,
    pairs,
    agreed,
    rate: pairs === 0 ? null : agreed / pairs,
    judges: [...judges]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([voter, record]) => ({ voter, ...record, rate: record.pairs === 0 ? null : record.agreed / record.pairs })),
  };
}

const choose2 = (n: number): number => (n * (n - 1)) / 2;
