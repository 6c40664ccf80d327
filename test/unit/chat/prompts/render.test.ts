import { ChatError } from '../../../../lambdas/chat/chat-errors.js';
import { renderTemplate } from '../../../../lambdas/chat/prompts/render-template.js';
import type { TemplateVariable } from '../../../../lambdas/chat/prompts/prompt-template.js';

const template = (content: string | string[], variables: TemplateVariable[] = []) => ({
  messages: (Array.isArray(content) ? content : [content]).map((c) => ({ role: 'system' as const, content: c })),
  variables,
});

function badRequestOf(fn: () => unknown): ChatError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ChatError);
    return error as ChatError;
  }
  throw new Error('expected a 400');
}

describe('renderTemplate', () => {
  test('replaces placeholders, with or without whitespace inside the braces, everywhere they occur', () => {
    const rendered = renderTemplate(template(['Hi {{name}}, {{ name }}! {{\tplace  }}', 'Bye {{name}}']), {
      name: 'Ada',
      place: 'London',
    });
    expect(rendered).toEqual([
      { role: 'system', content: 'Hi Ada, Ada! London' },
      { role: 'system', content: 'Bye Ada' },
    ]);
  });

  test('keeps roles and order of the template messages', () => {
    const rendered = renderTemplate(
      {
        messages: [
          { role: 'system', content: 'S {{a}}' },
          { role: 'user', content: 'U {{a}}' },
          { role: 'assistant', content: 'A' },
        ],
        variables: [],
      },
      { a: 1 },
    );
    expect(rendered.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
  });

  test('applies defaults when a value is absent or null, and a given value wins over the default', () => {
    const vars = [{ name: 'tone', required: false, default: 'friendly' }];
    expect(renderTemplate(template('{{tone}}', vars))[0]!.content).toBe('friendly');
    expect(renderTemplate(template('{{tone}}', vars), { tone: null })[0]!.content).toBe('friendly');
    expect(renderTemplate(template('{{tone}}', vars), { tone: 'formal' })[0]!.content).toBe('formal');
  });

  test('renders an optional variable without value or default as empty text', () => {
    expect(renderTemplate(template('[{{note}}]', [{ name: 'note', required: false }]))[0]!.content).toBe('[]');
  });

  test('strings go in as they are, other values as JSON (defaults too)', () => {
    const rendered = renderTemplate(
      template('{{s}}|{{n}}|{{b}}|{{o}}|{{a}}|{{d}}', [{ name: 'd', required: false, default: 3 }]),
      {
        s: 'say "hi"',
        n: 42.5,
        b: false,
        o: { k: [1, 'x'] },
        a: [1, 2],
      },
    );
    expect(rendered[0]!.content).toBe('say "hi"|42.5|false|{"k":[1,"x"]}|[1,2]|3');
  });

  test('names every missing required variable, declared or only used, once each', () => {
    const error = badRequestOf(() =>
      renderTemplate(
        template(
          ['{{a}} {{b}} {{a}}', '{{undeclared}} {{c}}'],
          [
            { name: 'a', required: true },
            { name: 'b', required: true },
            { name: 'c', required: false, default: 'ok' },
          ],
        ),
        { c: null },
      ),
    );
    expect(error.kind).toBe('invalid_request');
    expect(error.field).toBe('prompt_variables');
    expect(error.message).toBe('prompt_variables: missing required variables: a, b, undeclared');
  });

  test('a required variable unused in the text is still required', () => {
    expect(badRequestOf(() => renderTemplate(template('plain', [{ name: 'x', required: true }]))).message).toContain(
      'x',
    );
  });

  test('ignores variables the template does not use', () => {
    expect(renderTemplate(template('{{a}}'), { a: 'A', extra: 'E' })[0]!.content).toBe('A');
  });

  test('only {{identifier}} is a placeholder: JSON braces and other text stay literal', () => {
    const text = '{"a": {"b": 1}} {{ not valid }} {{1x}} {{a.b}} {{{name}}} {name}';
    expect(renderTemplate(template(text), { name: 'N' })[0]!.content).toBe(
      '{"a": {"b": 1}} {{ not valid }} {{1x}} {{a.b}} {N} {name}',
    );
  });

  test('values are inserted literally, never expanded again', () => {
    expect(renderTemplate(template('{{a}} {{b}}'), { a: '{{b}}', b: 'B' })[0]!.content).toBe('{{b}} B');
  });

  test('names from the object prototype are not variables', () => {
    expect(badRequestOf(() => renderTemplate(template('{{constructor}}'), {})).message).toContain('constructor');
  });
});
