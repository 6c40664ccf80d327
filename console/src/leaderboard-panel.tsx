/**
 * The account's leaderboard from its fights' votes (docs/interface.md §4.3): ratings with 95%
 * intervals. A fit not kept yet answers 202 while it is computed; the panel asks again.
 */
import { useEffect, useState } from 'preact/hooks';
import { withArenaKey } from './arena-key';
import { callApi, describeFailure } from './console-http';
import { Outcome, ScrollBox } from './form-fields';

interface Rating {
  readonly model: string;
  readonly family: string;
  readonly rating: number;
  readonly interval: readonly [number, number];
  readonly wins: number;
  readonly losses: number;
  readonly battles: number;
}

interface Leaderboard {
  readonly status?: string;
  readonly models?: readonly Rating[];
  readonly stale?: boolean;
}

const ASK_AGAIN_MS = 1500;
const MOST_ASKS = 20;

export function LeaderboardPanel({ accountId }: { accountId: string }) {
  const [board, setBoard] = useState<Leaderboard | undefined>();
  const [error, setError] = useState('');
  const [asked, setAsked] = useState(0);

  useEffect(() => {
    let stopped = false;
    const ask = async (attempt: number) => {
      try {
        const answer = await withArenaKey(accountId, (key) =>
          callApi<Leaderboard>('GET', '/api/v1/arena/leaderboard', {
            headers: { Authorization: `Bearer ${key}` },
            quietUnauthorized: true,
          }),
        );
        if (stopped) return;
        setError('');
        setBoard(answer);
        if ((answer.status === 'computing' || answer.stale) && attempt < MOST_ASKS)
          setTimeout(() => !stopped && ask(attempt + 1), ASK_AGAIN_MS);
      } catch (failure) {
        if (!stopped) setError(describeFailure(failure));
      }
    };
    void ask(0);
    return () => {
      stopped = true;
    };
  }, [asked]);

  const rows = board?.models ?? [];
  return (
    <section class="card" aria-labelledby="ratings-title">
      <h2 id="ratings-title">Leaderboard (last 30 days)</h2>
      <Outcome error={error} />
      {board === undefined || board.status === 'computing' ? (
        <p aria-busy="true">Computing the ratings…</p>
      ) : rows.length === 0 ? (
        <p>No votes yet: run a fight.</p>
      ) : (
        <ScrollBox label="Table of the ratings">
          <table data-testid="ratings">
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col" class="number">
                  Rating
                </th>
                <th scope="col">95% interval</th>
                <th scope="col" class="number">
                  Wins
                </th>
                <th scope="col" class="number">
                  Losses
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.model}>
                  <th scope="row">{row.model}</th>
                  <td class="number">{Math.round(row.rating)}</td>
                  <td>
                    {Math.round(row.interval[0])} – {Math.round(row.interval[1])}
                  </td>
                  <td class="number">{row.wins}</td>
                  <td class="number">{row.losses}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
      {board?.stale && <p class="hint">Newer sessions are being counted.</p>}
      <button type="button" class="secondary" onClick={() => setAsked(asked + 1)}>
        Refresh leaderboard
      </button>
    </section>
  );
}
