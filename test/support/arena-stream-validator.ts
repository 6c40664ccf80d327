/**
 * Checks a whole battle or fight stream against the rules of docs/interface.md §6.1 and issue 9: order, ids,
 * votes, tallies, winners and the leaderboard. Returns the problems found (empty when the
 * stream is sound), so a failing test prints every rule broken at once.
 */

export interface StreamEvent {
  readonly id: number;
  readonly event: { readonly type: string; readonly [field: string]: unknown };
}

interface RoundView {
  readonly round: number;
  readonly started: Set<string>;
  readonly completed: Map<string, string>;
  readonly deltas: Map<string, string>;
  readonly failed: Set<string>;
  /** Per agent: whether a search is open, and the citations its searches returned. */
  readonly searching: Map<string, boolean>;
  readonly searched: Map<string, Map<string, unknown>>;
  readonly votes: { voter: string; votedFor: string | null }[];
  votingStarted: boolean;
  results?: { agent: string; votes: number }[];
  leaderboard?: { agent: string; score: number; rank: number }[];
  winner?: string | null;
  completed_: boolean;
}

export function validateArenaStream(events: readonly StreamEvent[], mode: 'battle' | 'fight'): string[] {
  const problems: string[] = [];
  const fail = (message: string) => problems.push(message);
  if (events.length === 0) return ['the stream is empty'];

  events.forEach((current, i) => {
    if (i > 0 && current.id <= events[i - 1]!.id) fail(`ids must increase: ${events[i - 1]!.id} then ${current.id}`);
  });
  const first = events[0]!.event;
  const last = events.at(-1)!.event;
  if (first.type !== 'session_start') fail(`the first event is ${first.type}, not session_start`);
  if (last.type !== 'session_complete') fail(`the last event is ${last.type}, not session_complete`);
  if (events.filter((e) => e.event.type === 'session_start').length !== 1) fail('session_start must occur once');
  if (events.filter((e) => e.event.type === 'session_complete').length !== 1) fail('session_complete must occur once');

  const agents = (first['agents'] as string[] | undefined) ?? [];
  const totalRounds = Number(first['rounds']);
  const rounds: RoundView[] = [];
  let round: RoundView | undefined;
  const cumulative = new Map(agents.map((agent) => [agent, 0]));

  let synthesis: { model: string; text: string } | undefined;
  let synthesized = false;
  for (const { event } of events.slice(1, -1)) {
    const type = event.type;
    if (type.startsWith('synthesis_') || (type === 'error' && event['agent'] === 'synthesis')) {
      // After the last round, before session_complete; a synthesis_start begins it (again, after a hand-off).
      if (rounds.length !== totalRounds || !round?.completed_) fail(`${type} before the last round completed`);
      if (synthesized) fail(`${type} after synthesis_complete`);
      if (type === 'synthesis_start') synthesis = { model: String(event['model']), text: '' };
      else if (type === 'synthesis_delta') {
        if (!synthesis) fail('synthesis_delta before synthesis_start');
        else synthesis.text += String(event['delta']);
      } else if (type === 'synthesis_complete') {
        if (!synthesis) fail('synthesis_complete before synthesis_start');
        else if (synthesis.text !== event['message']) fail('the synthesis deltas do not add up to its message');
        synthesized = true;
      }
      continue;
    }
    if (type === 'round_start') {
      if (round && !round.completed_) fail(`round ${event['round']} started before round ${round.round} completed`);
      if (event['round'] !== rounds.length + 1) fail(`round_start ${event['round']} out of order`);
      if (event['totalRounds'] !== totalRounds)
        fail(`round_start.totalRounds ${event['totalRounds']} ≠ ${totalRounds}`);
      round = {
        round: Number(event['round']),
        started: new Set(),
        completed: new Map(),
        deltas: new Map(),
        failed: new Set(),
        searching: new Map(),
        searched: new Map(),
        votes: [],
        votingStarted: false,
        completed_: false,
      };
      rounds.push(round);
      continue;
    }
    if (type === 'error' && event['agent'] === undefined) continue;
    if (!round || round.completed_) {
      fail(`${type} outside a round`);
      continue;
    }
    const agent = String(event['agent'] ?? event['voter'] ?? '');
    if (event['round'] !== undefined && event['round'] !== round.round)
      fail(`${type} of round ${event['round']} inside round ${round.round}`);
    switch (type) {
      case 'agent_start':
        if (!agents.includes(agent)) fail(`agent_start for unknown agent ${agent}`);
        if (round.started.has(agent)) fail(`${agent} started twice in round ${round.round}`);
        if (round.votingStarted) fail(`agent_start of ${agent} after voting_start`);
        round.started.add(agent);
        break;
      case 'agent_delta':
        if (!round.started.has(agent) || round.completed.has(agent)) fail(`agent_delta of ${agent} outside its turn`);
        round.deltas.set(agent, (round.deltas.get(agent) ?? '') + String(event['delta']));
        break;
      case 'search_start':
      case 'search_content':
      case 'search_complete':
        checkSearch(round, agent, event, fail);
        break;
      case 'agent_complete':
        if (!round.started.has(agent)) fail(`agent_complete of ${agent} without agent_start`);
        if (round.searching.get(agent)) fail(`agent_complete of ${agent} while its search is open`);
        checkCitations(round, agent, event['citations'], fail);
        if (round.votingStarted) fail(`agent_complete of ${agent} after voting_start in round ${round.round}`);
        if ((round.deltas.get(agent) ?? '') !== event['message'])
          fail(`the deltas of ${agent} in round ${round.round} do not add up to its message`);
        round.completed.set(agent, String(event['message']));
        break;
      case 'error':
        if (round.completed.has(agent)) fail(`error for ${agent} after its agent_complete`);
        if (event['code'] === 'turn_interrupted') {
          // The turn moved to another host: what it wrote is void, and it is asked again.
          if (!round.started.has(agent)) fail(`turn_interrupted for ${agent}, which had not started`);
          round.started.delete(agent);
          round.deltas.delete(agent);
          round.searching.delete(agent);
          round.searched.delete(agent);
          break;
        }
        round.failed.add(agent);
        break;
      case 'voting_start':
        if (mode === 'battle') fail('a battle must not vote');
        if (round.votingStarted) fail(`voting started twice in round ${round.round}`);
        round.votingStarted = true;
        break;
      case 'vote_update': {
        if (!round.votingStarted) fail(`vote_update before voting_start in round ${round.round}`);
        const votedFor = event['votedFor'] as string | null;
        if (votedFor === agent) fail(`${agent} voted for itself in round ${round.round}`);
        if (votedFor !== null && !round.completed.has(votedFor))
          fail(`${agent} voted for ${votedFor}, which did not answer round ${round.round}`);
        if (!round.completed.has(agent)) fail(`${agent} voted without having answered round ${round.round}`);
        if (round.votes.some((vote) => vote.voter === agent)) fail(`${agent} voted twice in round ${round.round}`);
        if (votedFor === null && typeof event['reason'] !== 'string') fail(`the abstention of ${agent} has no reason`);
        round.votes.push({ voter: agent, votedFor });
        break;
      }
      case 'voting_complete':
        round.results = event['results'] as RoundView['results'];
        checkTally(round, fail);
        break;
      case 'leaderboard_update':
        round.leaderboard = event['leaderboard'] as RoundView['leaderboard'];
        break;
      case 'round_complete':
        round.winner = event['winner'] as string | null;
        round.completed_ = true;
        checkRoundEnd(round, mode, cumulative, fail);
        break;
      default:
        fail(`unknown event type ${type}`);
    }
  }

  if (rounds.length !== totalRounds)
    fail(`${rounds.length} rounds were played, session_start announced ${totalRounds}`);
  if (round && !round.completed_) fail(`round ${round.round} never completed`);
  checkSessionEnd(last, mode, cumulative, fail);
  return problems;
}

/** A search runs inside its agent's turn: start, content, complete, one at a time. */
function checkSearch(
  round: RoundView,
  agent: string,
  event: StreamEvent['event'],
  fail: (message: string) => void,
): void {
  const type = event.type;
  if (!round.started.has(agent) || round.completed.has(agent)) fail(`${type} of ${agent} outside its turn`);
  if (typeof event['timestamp'] !== 'number') fail(`${type} of ${agent} has no timestamp`);
  const open = round.searching.get(agent) ?? false;
  if (type === 'search_start') {
    if (open) fail(`${agent} started a search while one was open`);
    round.searching.set(agent, true);
    return;
  }
  if (!open) fail(`${type} of ${agent} without search_start`);
  if (type !== 'search_complete') return;
  round.searching.set(agent, false);
  const cited = round.searched.get(agent) ?? new Map<string, unknown>();
  for (const citation of (event['citations'] as { url: string }[] | undefined) ?? [])
    if (!cited.has(citation.url)) cited.set(citation.url, citation);
  round.searched.set(agent, cited);
}

/** An answer cites exactly what its searches returned, once per URL. */
function checkCitations(round: RoundView, agent: string, citations: unknown, fail: (message: string) => void): void {
  const expected = [...(round.searched.get(agent)?.values() ?? [])];
  const actual = (citations as unknown[] | undefined) ?? [];
  if (JSON.stringify(actual) !== JSON.stringify(expected))
    fail(`the citations of ${agent} in round ${round.round} are not what its searches returned`);
}

function checkTally(round: RoundView, fail: (message: string) => void): void {
  const results = round.results ?? [];
  for (const agent of round.completed.keys()) {
    const expected = round.votes.filter((vote) => vote.votedFor === agent).length;
    const listed = results.find((result) => result.agent === agent);
    if (!listed) fail(`voting_complete of round ${round.round} leaves out ${agent}`);
    else if (listed.votes !== expected)
      fail(`voting_complete gives ${agent} ${listed.votes} votes in round ${round.round}; ${expected} were cast`);
  }
  if (results.length !== round.completed.size)
    fail(`voting_complete of round ${round.round} lists ${results.length} agents; ${round.completed.size} answered`);
  if (round.votes.length !== round.completed.size)
    fail(`round ${round.round}: ${round.votes.length} votes for ${round.completed.size} voters`);
}

function checkRoundEnd(
  round: RoundView,
  mode: 'battle' | 'fight',
  cumulative: Map<string, number>,
  fail: (message: string) => void,
): void {
  if (mode === 'battle') {
    if (round.winner !== null) fail('a battle round has no winner');
    return;
  }
  const before = new Map(cumulative);
  for (const vote of round.votes)
    if (vote.votedFor) cumulative.set(vote.votedFor, (cumulative.get(vote.votedFor) ?? 0) + 1);
  const answered = [...round.completed.keys()];
  if (answered.length >= 2 && !round.results) fail(`round ${round.round} had ${answered.length} answers but no vote`);
  if (answered.length < 2 && round.votingStarted) fail(`round ${round.round} voted with fewer than two answers`);
  if (answered.length === 0) {
    if (round.winner !== null) fail(`round ${round.round} has a winner though nobody answered`);
  } else {
    const votesOf = (agent: string) => round.votes.filter((vote) => vote.votedFor === agent).length;
    const top = Math.max(...answered.map(votesOf));
    const tied = answered.filter((agent) => votesOf(agent) === top);
    const best = Math.max(...tied.map((agent) => before.get(agent) ?? 0));
    const eligible = tied.filter((agent) => (before.get(agent) ?? 0) === best);
    if (!round.winner || !eligible.includes(round.winner))
      fail(
        `round ${round.round}'s winner ${round.winner} does not follow the tally and tie rule (${eligible.join(', ')})`,
      );
  }
  if (!round.leaderboard) fail(`round ${round.round} has no leaderboard_update`);
  else checkLeaderboard(round.leaderboard, cumulative, `after round ${round.round}`, fail);
}

function checkLeaderboard(
  leaderboard: readonly { agent: string; score: number; rank: number }[],
  cumulative: Map<string, number>,
  when: string,
  fail: (message: string) => void,
): void {
  for (const [agent, score] of cumulative) {
    const row = leaderboard.find((entry) => entry.agent === agent);
    if (!row) fail(`the leaderboard ${when} leaves out ${agent}`);
    else if (row.score !== score)
      fail(`the leaderboard ${when} gives ${agent} ${row.score}; its votes add up to ${score}`);
  }
  for (const row of leaderboard) {
    const rank = 1 + leaderboard.filter((other) => other.score > row.score).length;
    if (row.rank !== rank) fail(`the leaderboard ${when} ranks ${row.agent} ${row.rank}, not ${rank}`);
  }
  for (let i = 1; i < leaderboard.length; i++)
    if (leaderboard[i]!.score > leaderboard[i - 1]!.score) fail(`the leaderboard ${when} is not sorted by score`);
}

function checkSessionEnd(
  last: StreamEvent['event'],
  mode: 'battle' | 'fight',
  cumulative: Map<string, number>,
  fail: (message: string) => void,
): void {
  if (last.type !== 'session_complete') return;
  const final = (last['finalLeaderboard'] as { agent: string; score: number; rank: number }[]) ?? [];
  if (mode === 'battle') {
    if (last['winner'] !== null) fail('a battle has no winner');
    return;
  }
  checkLeaderboard(final, cumulative, 'at the end', fail);
  const top = Math.max(...cumulative.values());
  const winner = last['winner'] as string | null;
  if (winner !== null && (cumulative.get(winner) ?? -1) !== top)
    fail(`the session winner ${winner} does not have the top score ${top}`);
}
