import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { RecordedCallSchema, type RecordedCall } from '@flowmesh/contracts';
import { z } from 'zod';
import { EvalCasesError } from './eval-cases.js';

/** The version of the file format below; a file of another one is refused, not misread. */
const FORMAT = 1;

/**
 * One case's recording as kept in git: every model answer of its run, in the order given, each
 * with the request it answered (provider kind and model, prompts, messages, tools, parameters;
 * never credentials). Pretty JSON, so a changed prompt or answer reads as a diff in review.
 */
export const RecordingFileSchema = z
  .object({
    flowmesh_recording: z.literal(FORMAT),
    case: z.string(),
    flow: z.string(),
    calls: z.array(RecordedCallSchema),
  })
  .strict();
export type RecordingFile = z.infer<typeof RecordingFileSchema>;

/** `--recordings` when not given: `cases.recordings/` beside `cases.jsonl`. */
export function defaultRecordingsDir(casesFile: string): string {
  return join(dirname(casesFile), `${basename(casesFile, extname(casesFile))}.recordings`);
}

/** The case's file in `dir`: its name with anything but letters, digits, `.`, `_`, `-` as `-`. */
export function recordingFileOf(dir: string, caseName: string): string {
  return join(dir, `${caseName.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '') || 'case'}.json`);
}

/** Refuses cases whose names give one file (each case has its own recording). */
export function checkDistinctFiles(dir: string, caseNames: readonly string[]): void {
  const seen = new Map<string, string>();
  const problems: string[] = [];
  for (const name of caseNames) {
    const file = recordingFileOf(dir, name);
    const other = seen.get(file);
    if (other !== undefined)
      problems.push(`cases "${other}" and "${name}" would share the recording ${file}: rename one`);
    else seen.set(file, name);
  }
  if (problems.length > 0) throw new EvalCasesError(problems.join('\n'));
}

export async function writeRecordingFile(file: string, recording: RecordingFile): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(recording, null, 2)}\n`);
}

/** The recorded calls of a case; a missing or malformed file is an error naming it. */
export async function readRecordingFile(file: string): Promise<RecordedCall[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new EvalCasesError(`${file}: no recording (record the cases first with --record)`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new EvalCasesError(`${file}: not JSON`);
  }
  const parsed = RecordingFileSchema.safeParse(json);
  if (!parsed.success)
    throw new EvalCasesError(
      parsed.error.issues
        .map((issue) => `${file}: ${issue.path.join('.') || 'recording'}: ${issue.message}`)
        .join('\n'),
    );
  return parsed.data.calls;
}
