/**
 * The arena: battle or fight, models or multi-instance, rounds, style and synthesis; the answers
 * stream side by side with their searches, the votes and the leaderboard arrive, the winner is
 * named. A dropped connection resumes by itself (arena-stream.ts). Past sessions replay from
 * their log at /arena/<session id>; the account's leaderboard is below.
 */
import { useEffect, useReducer, useRef, useState } from 'preact/hooks';
import { withArenaKey } from './arena-key';
import { EMPTY_SESSION, foldEvent, type AgentAnswer, type SessionView } from './arena-state';
import { followSession, type ArenaEventData } from './arena-stream';
import { callApi, describeFailure } from './console-http';
import { formatDate } from './console-format';
import { navigate } from './console-router';
import { Outcome, ScrollBox, SelectField, TextField } from './form-fields';
import { LeaderboardPanel } from './leaderboard-panel';

const ALIASES = ['gpt', 'claude', 'gemini', 'grok', 'deepseek', 'qwen', 'mistral', 'kimi'] as const;

type Action = { kind: 'reset' } | { kind: 'event'; event: ArenaEventData };
const reduce = (view: SessionView, action: Action): SessionView =>
  action.kind === 'reset' ? EMPTY_SESSION : foldEvent(view, action.event);

export function ArenaPage({ accountId, sessionPath }: { accountId: string; sessionPath: string }) {
  const [view, dispatch] = useReducer(reduce, EMPTY_SESSION);
  const [connection, setConnection] = useState<'live' | 'reconnecting' | ''>('');
  const [error, setError] = useState('');
  const running = useRef<AbortController | undefined>(undefined);

  const follow = async (options: { start?: { path: string; body: unknown }; sessionId?: string }) => {
    running.current?.abort();
    const controller = new AbortController();
    running.current = controller;
    dispatch({ kind: 'reset' });
    setError('');
    try {
      await withArenaKey(accountId, (key) =>
        followSession({
          key,
          ...options,
          signal: controller.signal,
          onEvent: (event) => {
            dispatch({ kind: 'event', event });
            if (event.type === 'session_start' && options.start && typeof event['sessionId'] === 'string')
              history.replaceState(null, '', `/arena/${event['sessionId']}`);
          },
          onConnection: setConnection,
        }),
      );
    } catch (failure) {
      if (!controller.signal.aborted) setError(describeFailure(failure));
    } finally {
      if (running.current === controller) setConnection('');
    }
  };

  useEffect(() => {
    if (sessionPath && sessionPath !== view.sessionId) void follow({ sessionId: sessionPath });
  }, [sessionPath]);
  useEffect(() => () => running.current?.abort(), []);

  return (
    <>
      <h1>Arena</h1>
      <ArenaForm onStart={(start) => void follow({ start })} busy={view.status === 'running'} />
      <Outcome error={error} />
      <p class="status-line" role="status" aria-live="polite" data-testid="arena-status">
        {connection === 'reconnecting'
          ? 'Connection lost: reconnecting…'
          : view.status === 'running'
            ? `Running${view.mode ? ` ${view.mode}` : ''}…`
            : view.status === 'complete'
              ? view.winner
                ? `Winner: ${view.winner}`
                : 'Complete'
              : view.status === 'failed'
                ? 'The session ended early.'
                : ''}
      </p>
      {view.status !== 'idle' && <SessionBoard view={view} />}
      <SessionHistory accountId={accountId} refresh={view.status} />
      <LeaderboardPanel accountId={accountId} />
    </>
  );
}

function ArenaForm({ onStart, busy }: { onStart: (start: { path: string; body: unknown }) => void; busy: boolean }) {
  const [mode, setMode] = useState<'battle' | 'fight'>('battle');
  const [agents, setAgents] = useState<'models' | 'multi'>('models');
  const [models, setModels] = useState<readonly string[]>(['gpt', 'claude']);
  const [multiAlias, setMultiAlias] = useState<string>('gpt');
  const [rounds, setRounds] = useState('1');
  const [style, setStyle] = useState('brawl');
  const [synthesize, setSynthesize] = useState(false);
  const [message, setMessage] = useState('');
  const [problem, setProblem] = useState('');

  const submit = (event: Event) => {
    event.preventDefault();
    const multi = mode === 'fight' && agents === 'multi';
    if (!multi && mode === 'battle' && models.length !== 2) return setProblem('A battle takes exactly two models.');
    if (!multi && models.length < 2) return setProblem('A fight takes two to eight models.');
    setProblem('');
    const body =
      mode === 'battle'
        ? { message, models }
        : {
            message,
            ...(multi ? { agentMode: `multiple-${multiAlias}` } : { models }),
            rounds: Number(rounds),
            fightStyle: style,
            ...(synthesize ? { synthesize: true } : {}),
          };
    onStart({ path: `/api/v1/${mode}`, body });
  };

  const toggle = (alias: string, on: boolean) =>
    setModels(on ? [...models.filter((m) => m !== alias), alias] : models.filter((m) => m !== alias));

  return (
    <form class="card arena-form" onSubmit={submit} aria-label="Start a session">
      <fieldset>
        <legend>Kind</legend>
        {(['battle', 'fight'] as const).map((kind) => (
          <label key={kind} class="choice">
            <input type="radio" name="arena-kind" value={kind} checked={mode === kind} onChange={() => setMode(kind)} />
            {kind === 'battle' ? 'Battle (two models, no vote)' : 'Fight (rounds and votes)'}
          </label>
        ))}
      </fieldset>
      {mode === 'fight' && (
        <fieldset>
          <legend>Agents</legend>
          <label class="choice">
            <input
              type="radio"
              name="arena-agents"
              checked={agents === 'models'}
              onChange={() => setAgents('models')}
            />
            Different models
          </label>
          <label class="choice">
            <input type="radio" name="arena-agents" checked={agents === 'multi'} onChange={() => setAgents('multi')} />
            Four instances of one model
          </label>
        </fieldset>
      )}
      {mode === 'fight' && agents === 'multi' ? (
        <SelectField label="Model" value={multiAlias} onChange={setMultiAlias} options={ALIASES.map((a) => [a, a])} />
      ) : (
        <fieldset>
          <legend>Models</legend>
          {ALIASES.map((alias) => (
            <label key={alias} class="choice">
              <input
                type="checkbox"
                checked={models.includes(alias)}
                onChange={(e) => toggle(alias, e.currentTarget.checked)}
              />
              {alias}
            </label>
          ))}
        </fieldset>
      )}
      {mode === 'fight' && (
        <div class="inline-form">
          <TextField label="Rounds" type="number" min={1} max={10} value={rounds} onInput={setRounds} />
          <SelectField
            label="Style"
            value={style}
            onChange={setStyle}
            options={[
              ['brawl', 'Brawl: every answer seen'],
              ['blitz', 'Blitz: only winners carried on'],
            ]}
          />
          <label class="choice">
            <input type="checkbox" checked={synthesize} onChange={(e) => setSynthesize(e.currentTarget.checked)} />
            Synthesize a final answer
          </label>
        </div>
      )}
      <div class="field">
        <label for="arena-message">Prompt</label>
        <textarea
          id="arena-message"
          rows={3}
          maxLength={2000}
          required
          value={message}
          onInput={(e) => setMessage(e.currentTarget.value)}
        />
      </div>
      <Outcome error={problem} />
      <button type="submit" disabled={busy}>
        {busy ? 'Running…' : `Start ${mode}`}
      </button>
    </form>
  );
}

function SessionBoard({ view }: { view: SessionView }) {
  return (
    <section
      aria-labelledby="session-title"
      class="session"
      data-testid="arena-session"
      data-status={view.status}
      data-events={view.events}
    >
      <h2 id="session-title">
        {view.mode === 'fight' ? 'Fight' : 'Battle'} {view.sessionId ? <code>{view.sessionId}</code> : null}
      </h2>
      {view.notices.map((notice, i) => (
        <p key={i} class="error">
          {notice}
        </p>
      ))}
      {view.rounds.map((round) => (
        <section key={round.round} aria-label={`Round ${round.round}`} class="round">
          {view.totalRounds > 1 && (
            <h3>
              Round {round.round} of {view.totalRounds}
            </h3>
          )}
          <div class="answers">
            {view.agents.map((agent) => (
              <AnswerCard key={agent} agent={agent} answer={round.answers[agent]} />
            ))}
          </div>
          {round.votes.length > 0 && (
            <ul class="votes" aria-label={`Votes in round ${round.round}`}>
              {round.votes.map((vote, i) => (
                <li key={i}>
                  {vote.voter} → {vote.votedFor ?? `abstained${vote.reason ? ` (${vote.reason})` : ''}`}
                </li>
              ))}
            </ul>
          )}
          {view.mode !== 'battle' && round.winner !== undefined && (
            <p class="round-winner" data-testid="round-winner">
              Round {round.round}: {round.winner ? `${round.winner} wins` : 'no winner'}
            </p>
          )}
        </section>
      ))}
      {view.leaderboard.length > 0 && (
        <ScrollBox label="Table of the session leaderboard">
          <table class="leaderboard" aria-label="Session leaderboard">
            <thead>
              <tr>
                <th scope="col">Rank</th>
                <th scope="col">Agent</th>
                <th scope="col" class="number">
                  Score
                </th>
              </tr>
            </thead>
            <tbody>
              {view.leaderboard.map((row) => (
                <tr key={row.agent}>
                  <td>{row.rank}</td>
                  <th scope="row">{row.agent}</th>
                  <td class="number">{row.score}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
      {view.synthesis && (
        <article class="answer synthesis" aria-label="Synthesis" aria-busy={!view.synthesis.done}>
          <h3>Synthesis by {view.synthesis.model}</h3>
          <div class="answer-text" aria-live="polite">
            {view.synthesis.text}
          </div>
        </article>
      )}
      {view.status === 'complete' && (
        <p class="winner" data-testid="arena-winner">
          {view.winner ? `Winner: ${view.winner}` : 'Done: a battle has no winner.'}
        </p>
      )}
    </section>
  );
}

function AnswerCard({ agent, answer }: { agent: string; answer?: AgentAnswer }) {
  return (
    <article
      class="answer"
      aria-label={`Answer of ${agent}`}
      aria-busy={answer ? !answer.done : true}
      data-agent={agent}
    >
      <h4>
        {agent}
        {answer && answer.model !== agent ? <small> ({answer.model})</small> : null}
      </h4>
      {answer?.searches.map((search, i) => (
        <div key={i} class="search">
          <span>Searched: {search.query}</span>
          {search.citations && (
            <ul>
              {search.citations.map((c) => (
                <li key={c.url}>
                  <a href={c.url} rel="noreferrer noopener" target="_blank">
                    {c.title || c.url}
                  </a>
                </li>
              ))}
            </ul>
          )}
        </div>
      ))}
      <div class="answer-text" aria-live="polite">
        {answer?.text ?? (answer ? '' : 'Waiting…')}
      </div>
      {answer?.error && <p class="error">{answer.error}</p>}
      {answer && answer.citations.length > 0 && (
        <details>
          <summary>Sources ({answer.citations.length})</summary>
          <ul>
            {answer.citations.map((c) => (
              <li key={c.url}>
                <a href={c.url} rel="noreferrer noopener" target="_blank">
                  {c.title || c.url}
                </a>
              </li>
            ))}
          </ul>
        </details>
      )}
    </article>
  );
}

interface SessionSummary {
  readonly id: string;
  readonly mode: string;
  readonly agents: readonly (string | { agent: string })[];
  readonly rounds: number;
  readonly status: string;
  readonly winner: string | null;
  readonly startedAt: string;
}

function SessionHistory({ accountId, refresh }: { accountId: string; refresh: string }) {
  const [sessions, setSessions] = useState<readonly SessionSummary[] | undefined>();
  const [error, setError] = useState('');
  useEffect(() => {
    if (refresh === 'running') return;
    withArenaKey(accountId, (key) =>
      callApi<{ sessions: SessionSummary[] }>('GET', '/api/v1/sessions?limit=10', {
        headers: { Authorization: `Bearer ${key}` },
        quietUnauthorized: true,
      }),
    ).then(
      (data) => {
        setError('');
        setSessions(data.sessions);
      },
      (failure) => setError(describeFailure(failure)),
    );
  }, [refresh]);
  return (
    <section class="card" aria-labelledby="history-title">
      <h2 id="history-title">Past sessions</h2>
      <Outcome error={error} />
      {sessions === undefined ? (
        <p aria-busy="true">Loading sessions…</p>
      ) : sessions.length === 0 ? (
        <p>No sessions yet.</p>
      ) : (
        <ul class="history">
          {sessions.map((s) => (
            <li key={s.id}>
              <a
                href={`/arena/${s.id}`}
                onClick={(event) => {
                  event.preventDefault();
                  navigate(`/arena/${s.id}`);
                }}
              >
                Replay {s.mode} of {formatDate(s.startedAt)}
              </a>{' '}
              — {s.status}
              {s.winner ? `, winner ${s.winner}` : ''}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
