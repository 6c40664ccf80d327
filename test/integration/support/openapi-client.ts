import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { PROJECT_ROOT } from '../../../lib/constructs/endpoint-function.js';

/**
 * A client program written against the TypeScript types openapi-typescript generates from a
 * served document: type-checked (strict) against them, then run. The program imports only
 * types, so once compiled it needs nothing but what it is given.
 */
export class GeneratedClient {
  private readonly dir = mkdtempSync(join(tmpdir(), 'gateway-openapi-'));

  static async fromDocument(document: object): Promise<GeneratedClient> {
    const client = new GeneratedClient();
    writeFileSync(join(client.dir, 'schema.ts'), astToString(await openapiTS(document as never)));
    return client;
  }

  /**
   * Strict type errors of each program (name → a module importing `./schema.js`) against the
   * generated types, checked as one compilation.
   */
  typeErrors(programs: Readonly<Record<string, string>>): Record<string, string[]> {
    const files = Object.entries(programs).map(([name, source]) => {
      const file = join(this.dir, `${name}.ts`);
      writeFileSync(file, source);
      return [name, file] as const;
    });
    const program = ts.createProgram(
      files.map(([, file]) => file),
      {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        skipLibCheck: true,
        types: [],
        baseUrl: PROJECT_ROOT,
        paths: { 'openapi-fetch': ['node_modules/openapi-fetch'] },
      },
    );
    return Object.fromEntries(
      files.map(([name, file]) => [
        name,
        ts
          .getPreEmitDiagnostics(program, program.getSourceFile(file))
          .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')),
      ]),
    );
  }

  /** The program's exports, compiled as it is (its imports are types only, so none remain). */
  async load<Module>(name: string, source: string): Promise<Module> {
    const compiled = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    });
    const file = join(this.dir, `${name}.mjs`);
    writeFileSync(file, compiled.outputText);
    return (await import(pathToFileURL(file).href)) as Module;
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
