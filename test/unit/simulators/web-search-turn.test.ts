import { runScript } from '../../../local/simulators/script.js';
import type { ScriptInput, ScriptMessage } from '../../../local/simulators/script-types.js';

const webSearch = { name: 'web_search', parameters: { type: 'object', properties: { query: { type: 'string' } } } };
const user = (text: string): ScriptMessage => ({ role: 'user', text, images: 0 });
const input = (messages: ScriptMessage[], tools = [webSearch]): ScriptInput => ({
  model: 'gpt-5',
  messages,
  tools,
  toolChoice: 'auto',
});

describe('the simulated model and web search', () => {
  it('searches when asked about recent events or for sources, with the question as the query', () => {
    for (const question of ['What is the latest news on fusion?', 'Explain tides, and cite sources.']) {
      const turn = runScript(input([user(question)]));
      expect(turn.toolCalls).toEqual([{ id: expect.any(String), name: 'web_search', arguments: { query: question } }]);
      expect(turn.finishReason).toBe('tool_calls');
    }
  });

  it('answers without searching otherwise, or when no web_search tool is offered', () => {
    expect(runScript(input([user('What is 2+2?')])).toolCalls).toEqual([]);
    expect(runScript(input([user('Latest news?')], [])).toolCalls).toEqual([]);
  });

  it('obeys [sim:search=QUERY], and cites the URLs a search result gave it', () => {
    expect(runScript(input([user('Hi [sim:search=tide tables]')])).toolCalls[0]!.arguments).toEqual({
      query: 'tide tables',
    });
    const after = runScript(
      input([
        user('Latest news?'),
        { role: 'assistant', text: '', images: 0 },
        {
          role: 'tool',
          text: '[1] A — https://a.example/x\n[2] B — https://b.example/y',
          images: 0,
          toolName: 'web_search',
        },
      ]),
    );
    expect(after.toolCalls).toEqual([]);
    expect(after.text).toBe('According to https://a.example/x and https://b.example/y, here is what the search found.');
  });

  it('[sim:search_always] keeps calling the tool after a result, while it is offered', () => {
    const messages = [
      user('Hi [sim:search_always]'),
      { role: 'assistant' as const, text: '', images: 0 },
      { role: 'tool' as const, text: 'https://a.example', images: 0 },
    ];
    expect(runScript(input(messages)).toolCalls).toHaveLength(1);
    expect(runScript(input(messages, [])).text).toMatch(/^According to https:\/\/a\.example/);
  });
});
