import { readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

/**
 * The OpenFlow corpus: `valid/` flows that must parse and round-trip, `invalid/` flows each
 * with its expected errors in `<name>.errors` (one `path: message` a line), `status/` flow
 * statuses.
 */
export const CORPUS_DIR = fileURLToPath(new URL('.', import.meta.url));

export interface CorpusFile {
  /** `valid/hello-world.yaml` */
  readonly name: string;
  readonly path: string;
  readonly format: 'json' | 'yaml';
  readonly text: string;
}

export function corpusFiles(folder: 'valid' | 'invalid' | 'status'): CorpusFile[] {
  return readdirSync(join(CORPUS_DIR, folder))
    .filter((file) => ['.json', '.yaml', '.yml'].includes(extname(file)))
    .sort()
    .map((file) => {
      const path = join(CORPUS_DIR, folder, file);
      return {
        name: relative(CORPUS_DIR, path),
        path,
        format: extname(file) === '.json' ? 'json' : 'yaml',
        text: readFileSync(path, 'utf8'),
      };
    });
}

/** The file's data as a plain JSON or YAML reader sees it, independent of the code under test. */
export function corpusData(file: CorpusFile): unknown {
  return file.format === 'json' ? JSON.parse(file.text) : parseYaml(file.text);
}

export function expectedErrors(file: CorpusFile): string[] {
  return readFileSync(`${file.path.slice(0, -extname(file.path).length)}.errors`, 'utf8').trimEnd().split('\n');
}
