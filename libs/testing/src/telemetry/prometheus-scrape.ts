/** One sample of a Prometheus text exposition: `name{labels} value`. */
export interface PrometheusSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** GET `<baseUrl>/metrics` and its samples; throws unless it answers 200 in the text format. */
export async function scrapeMetrics(baseUrl: string): Promise<PrometheusSample[]> {
  const response = await fetch(`${baseUrl}/metrics`);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${baseUrl}/metrics answered ${response.status}: ${text}`);
  return parsePrometheusText(text);
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The samples of the Prometheus text format (comments and blank lines skipped). */
export function parsePrometheusText(text: string): PrometheusSample[] {
  const samples: PrometheusSample[] = [];
  for (const line of text.split('\n')) {
    const match = SAMPLE.exec(line);
    if (!match || line.startsWith('#')) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL))
      labels[key] = value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}
