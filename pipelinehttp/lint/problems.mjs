// Prints the problems of a Redocly (--format=json) and a Spectral (-f json)
// report as sorted lines "tool severity rule location", without line
// numbers, so that CI can compare them with expected-problems.txt.
import { readFileSync } from 'node:fs';

const [redoclyReport, spectralReport] = process.argv.slice(2);
const pointer = (parts) => '#/' + parts.map((p) => String(p).replaceAll('~', '~0').replaceAll('/', '~1')).join('/');
const spectralSeverity = ['error', 'warn', 'info', 'hint'];

const lines = [];
for (const p of JSON.parse(readFileSync(redoclyReport, 'utf8')).problems) {
  lines.push(`redocly ${p.severity} ${p.ruleId} ${p.location[0].pointer}`);
}
for (const p of JSON.parse(readFileSync(spectralReport, 'utf8'))) {
  lines.push(`spectral ${spectralSeverity[p.severity]} ${p.code} ${pointer(p.path)}`);
}
lines.sort();
process.stdout.write(lines.map((l) => l + '\n').join(''));
