// Writes a run's results as Markdown, JSON and an SVG bar chart of the ratios against their targets.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { round } from './stats.mjs';

const fmt = (v, digits = 3) => (v === undefined || v === null || Number.isNaN(v) ? '–' : String(round(v, digits)));
const int = (v) => (v === undefined ? '–' : Math.round(v).toLocaleString('en-US'));
const ms = (v) => (v === undefined ? '–' : v < 10 ? v.toFixed(2) : v.toFixed(1));
const pct = (v) => (v === undefined ? '–' : `${Math.round(v * 100)}%`);
const targetText = (t) =>
  `${t.op === '>=' ? '≥' : '≤'} ${t.value}${t.unit ?? 'x'}` +
  (t.orRps ? ` or ≥ ${t.orRps.toLocaleString('en-US')} req/s` : '') +
  (t.p99Ms ? `, p99 ≤ ${t.p99Ms} ms` : '');
const resultText = (s) => ({ met: '✅ met', missed: '❌ missed', skipped: '⏭ skipped', failed: '⚠️ failed' })[s.status] ?? s.status;

function measuredText(s) {
  if (s.status === 'skipped') return '–';
  if (s.kind === 'startup') return `${fmt(s.measured / 1000)} s`;
  if (s.kind === 'memory') return `${fmt(s.measured)} MB`;
  if (s.kind === 'cost') return `${fmt(s.measured, 1)} µs`;
  if (s.kind === 'mixed') return `${fmt(s.measured, 1)} ms`;
  if (s.kind === 'cpu') return `${fmt(s.measured)}x CPU`;
  return `${fmt(s.measured)}x`;
}

function sideCells(side) {
  if (!side) return ['–', '–', '–'];
  return [int(side.rps), `${ms(side.p50Ms)} / ${ms(side.p99Ms)}`, fmt(side.cpuUsPerRequest)];
}

/** The Markdown report. */
export function toMarkdown(run) {
  const { machine, settings } = run;
  const out = [];
  out.push(`# Pet Store benchmark (${settings.mode})`, '');
  out.push(
    `${run.finishedAt} · ${run.revision}, build of ${run.builtAt} (a copy taken at the start of the run) · ${settings.pairs} pairs (A B, B A, A B …) of ${settings.duration} s per run, ${settings.warmup} s warm-up · ` +
      `${settings.connections} connections (latency scenarios: ${settings.latencyConnections}, ${settings.latencyDuration} s), pipelining 1 · ` +
      `autocannon ${machine.autocannon} in its own process · whole run ${Math.round(run.elapsedS)} s` +
      (settings.cpuProf ? ' · **service under --cpu-prof: numbers include profiler overhead**' : ''),
    '',
  );
  out.push(
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.os}, Node ${machine.node}` +
      (run.postgres ? `, ${run.postgres}` : ', no PostgreSQL (DATABASE_URL unset)') +
      ` · load average at start ${machine.loadAverage.join(' ')}, at end ${machine.loadAverageAtEnd?.join(' ') ?? '–'}`,
    '',
  );
  out.push(
    'Ratio = median over the pairs of (service ÷ baseline) req/s; for the big-data rows, (1,000,000 pets ÷ 10,000 pets) p50. ' +
      'CPU µs/req is the server process\'s user+system time (/proc/<pid>/stat) over the requests it answered. p50/p99 in ms.',
    '',
  );
  out.push('| Scenario | Target | Measured | Result | Service req/s | Service p50 / p99 | Service CPU µs/req | Baseline | Baseline req/s | Baseline p50 / p99 | Baseline CPU µs/req |');
  out.push('| --- | --- | --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: |');
  for (const s of run.scenarios) {
    const b = sideCells(s.b?.summary);
    const a = sideCells(s.a?.summary);
    out.push(`| ${s.title} | ${targetText(s.target)} | ${measuredText(s)} | ${resultText(s)} | ${b.join(' | ')} | ${s.a?.label ?? '–'} | ${a.join(' | ')} |`);
  }
  out.push('');

  const notes = run.scenarios.filter((s) => s.note || s.reason);
  if (notes.length) {
    out.push('## Notes', '');
    for (const s of notes) out.push(`- **${s.title}**: ${[s.reason, s.note].filter(Boolean).join(' ')}`);
    out.push('');
  }

  const measured = run.scenarios.filter((s) => s.pairs?.length);
  if (measured.length) {
    out.push('## Per pair', '');
    out.push(
      'Other load: cores busy with processes outside the run (not the server, the load generator or a measured PostgreSQL), median per side; high values mean a noisy machine.',
      '',
    );
    out.push('| Scenario | Ratios per pair | Service req/s per run | Baseline req/s per run | Kernel share of server CPU (service / baseline) | DB CPU µs/req (service / baseline) | Other load, cores (service / baseline) |');
    out.push('| --- | --- | --- | --- | --- | --- | --- |');
    for (const s of measured) {
      const db = s.b.summary.dbCpuUsPerRequest !== undefined ? `${fmt(s.b.summary.dbCpuUsPerRequest)} / ${fmt(s.a.summary.dbCpuUsPerRequest)}` : '–';
      out.push(
        `| ${s.title} | ${s.pairs.map((p) => fmt(p.ratio)).join(', ')} | ${s.pairs.map((p) => int(p.b.rps)).join(', ')} | ` +
          `${s.pairs.map((p) => int(p.a.rps)).join(', ')} | ${pct(s.b.summary.systemShare)} / ${pct(s.a.summary.systemShare)} | ${db} | ${fmt(Math.max(0, s.b.summary.otherCores), 2)} / ${fmt(Math.max(0, s.a.summary.otherCores), 2)} |`,
      );
    }
    out.push('');
  }

  const missedProfiles = run.scenarios.filter((s) => s.profile);
  if (missedProfiles.length) {
    out.push(
      '## Profiles of the rows that missed',
      '',
      'Self time by function from `node --cpu-prof` in one extra run of the service of each row that missed (not counted in its numbers), ' +
        'only samples taken during that run. `writev` and other `(native)` entries include the kernel work of the call.',
      '',
    );
    for (const s of missedProfiles) {
      const p = s.profile;
      out.push(
        `### ${s.title}`,
        '',
        `${p.samples} samples (${p.sampledMs} ms).`,
        '',
        '| Self time | Function | Where |',
        '| ---: | --- | --- |',
        ...p.functions.slice(0, 10).map((f) => `| ${f.percent}% | \`${f.name}\` | ${f.where || f.package} |`),
        '',
        `By package: ${p.packages.map((k) => `${k.name} ${k.percent}%`).join(', ')}`,
        '',
      );
    }
  }

  if (run.profiles?.length) {
    out.push(
      '## Where the time goes (CPU profiles of the service)',
      '',
      'Self time by function from `node --cpu-prof` (V8 samples every 1 ms while the thread is not idle), counting only samples taken during the measured runs. ' +
        '`writev` and other `(native)` entries include the kernel work of the call (socket writes wake the load generator or a PostgreSQL backend).',
      '',
    );
    for (const p of run.profiles) {
      out.push(
        `### ${p.scenarios.join(', ')}`,
        '',
        `\`${p.file}\` · ${p.samples} samples (${p.sampledMs} ms) ${p.windowed ? 'inside the measured runs' : 'over the whole process life (the runs could not be isolated)'}; ` +
          `/proc says the process used ${p.measuredCpuMs} ms of CPU in those runs, ${Math.round((p.measuredSystemShare ?? 0) * 100)}% of it in the kernel.`,
        '',
        '| Self time | Function | Where |',
        '| ---: | --- | --- |',
        ...p.functions.map((f) => `| ${f.percent}% | \`${f.name}\` | ${f.where || f.package} |`),
        '',
        `By package: ${p.packages.map((k) => `${k.name} ${k.percent}%`).join(', ')}`,
        '',
      );
    }
  }
  return out.join('\n');
}

/** A horizontal bar chart of every ratio scenario, with its target as a dashed line. */
export function toSvg(run) {
  const rows = run.scenarios.filter((s) => s.kind === 'throughput' || s.kind === 'latency');
  const width = 760;
  const labelWidth = 330;
  const rowHeight = 34;
  const top = 40;
  const height = top + rows.length * rowHeight + 30;
  const maxValue = Math.max(1.5, ...rows.flatMap((s) => [s.target.value * 1.15, (s.measured ?? 0) * 1.1]));
  const plotWidth = width - labelWidth - 70;
  const x = (v) => Math.round((labelWidth + (v / maxValue) * plotWidth) * 10) / 10;
  const escape = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="10" y="20" font-size="14" font-weight="bold">Pet Store benchmark (${run.settings.mode}): ratio per scenario; dashed line = target; green met, red missed</text>`,
  ];
  for (let tick = 0; tick <= maxValue; tick += maxValue > 4 ? 1 : 0.5) {
    parts.push(`<line x1="${x(tick)}" y1="${top - 6}" x2="${x(tick)}" y2="${height - 24}" stroke="#eee"/>`);
    parts.push(`<text x="${x(tick)}" y="${height - 10}" text-anchor="middle" fill="#666">${tick}x</text>`);
  }
  rows.forEach((s, i) => {
    const y = top + i * rowHeight;
    const label = s.chartLabel ?? s.title;
    const short = label.length > 52 ? `${label.slice(0, 51)}…` : label;
    parts.push(`<text x="${labelWidth - 8}" y="${y + 17}" text-anchor="end">${escape(short)}</text>`);
    if (s.measured === undefined) {
      parts.push(`<text x="${labelWidth + 4}" y="${y + 17}" fill="#888">${escape(s.status)}${s.reason ? `: ${escape(s.reason.slice(0, 40))}` : ''}</text>`);
    } else {
      const color = s.status === 'met' ? '#2e7d32' : s.status === 'missed' ? '#c62828' : '#9e9e9e';
      parts.push(`<rect x="${labelWidth}" y="${y + 5}" width="${Math.max(1, Math.round((x(s.measured) - labelWidth) * 10) / 10)}" height="${rowHeight - 12}" fill="${color}"/>`);
      parts.push(`<text x="${x(s.measured) + 4}" y="${y + 17}">${round(s.measured, 3)}x</text>`);
    }
    const tx = x(s.target.value);
    parts.push(`<line x1="${tx}" y1="${y + 1}" x2="${tx}" y2="${y + rowHeight - 3}" stroke="#000" stroke-width="2" stroke-dasharray="4 3"/>`);
    parts.push(`<text x="${tx + 3}" y="${y + rowHeight - 4}" font-size="10" fill="#333">${s.target.op === '>=' ? '≥' : '≤'} ${s.target.value}x</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}

/** Keeps the JSON small: 4 significant digits, no internal timing windows. */
const compact = (key, value) =>
  key === 'window' ? undefined : typeof value === 'number' && !Number.isInteger(value) ? round(value, 4) : value;

/** Writes NAME.md, NAME.json and NAME.svg under `dir` (NAME is `latest` unless --out says otherwise). */
export async function writeReports(dir, name, run) {
  await mkdir(dir, { recursive: true });
  const markdown = toMarkdown(run);
  await writeFile(join(dir, `${name}.md`), `${markdown}\n`);
  await writeFile(join(dir, `${name}.json`), `${JSON.stringify(run, compact, 1)}\n`);
  await writeFile(join(dir, `${name}.svg`), `${toSvg(run)}\n`);
  return markdown;
}
