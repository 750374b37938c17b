// The title a session is listed under. A transcript without a summary line has no title of its own, and an
// id is no title: a reader cannot tell two ids apart at a glance (issue 45). So one is derived at ingest and
// stored with the session, where the list, the session page, the PR page and comment, the exports, the CLI
// and the title search all read it. No SQL, no HTTP.
import { scrubString } from '../../capture/scrub.js';
import type { AgentSessionV1 } from './document.js';

/** The longest derived title, in characters (a cut one ends with an ellipsis within it). */
export const TITLE_MAX_CHARS = 80;

/**
 * The session's title: the one it was sent with; else, where the tier keeps message text (`full`), the first
 * line of its first prompt from a person (a subagent's transcript has none: the prompt its parent gave it);
 * else its agent, branch and turn count, as "claude-code on fix/parser · 81 turns". Secrets are scrubbed from
 * a title taken from the text, whatever the sender did.
 */
export function sessionTitle(doc: Pick<AgentSessionV1, 'title' | 'turns' | 'agent' | 'env'>): string {
  // A title the sender gave is kept as sent, as it always was (search and exports match it exactly).
  if (typeof doc.title === 'string' && doc.title.trim() !== '') return doc.title;
  const prompt = firstPrompt(doc.turns);
  if (prompt) return prompt;
  return fallbackTitle(doc);
}

/** The agent, the branch where known, and the number of turns. */
export function fallbackTitle(doc: Pick<AgentSessionV1, 'turns' | 'agent' | 'env'>): string {
  const turns = doc.turns.length;
  const agent = oneLine(doc.agent.type) || 'agent';
  const branch = typeof doc.env.gitBranch === 'string' ? oneLine(scrubString(doc.env.gitBranch)) : '';
  return cut(`${agent}${branch ? ` on ${branch}` : ''} · ${turns} ${turns === 1 ? 'turn' : 'turns'}`);
}

function firstPrompt(turns: AgentSessionV1['turns']): string {
  for (const source of ['human', 'peer'] as const) {
    for (const turn of turns) {
      if (turn.role !== 'user' || (turn.source ?? 'human') !== source || typeof turn.text !== 'string') continue;
      const line = firstLine(promptText(turn.text));
      if (line) return cut(scrubString(line));
    }
  }
  return '';
}

/**
 * What the person typed: a slash command is written by Claude Code as tags (`<command-name>/review</command-name>
 * <command-args>#12</command-args>`), read back as `/review #12`; reminders the agent added are not the prompt.
 */
function promptText(text: string): string {
  const command = /<command-name>([^<]*)<\/command-name>/.exec(text)?.[1]?.trim();
  if (command) {
    const args = /<command-args>([^<]*)<\/command-args>/.exec(text)?.[1]?.trim();
    return `${command.startsWith('/') ? command : `/${command}`}${args ? ` ${args}` : ''}`;
  }
  return text.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '');
}

function firstLine(text: string): string {
  for (const line of text.split(/\r?\n/)) {
    const one = oneLine(line);
    if (one) return one;
  }
  return '';
}

/** Whitespace runs (tabs, newlines) as one space, control characters dropped, trimmed, at most TITLE_MAX_CHARS. */
function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return cut(
    text
      .replace(/[\u0000-\u0008\u000e-\u001f\u007f]/g, '')
      .replace(/\s+/g, ' ')
      .trim(),
  );
}

/** At most TITLE_MAX_CHARS characters (code points, so an emoji is never split), an ellipsis marking a cut. */
function cut(text: string): string {
  const chars = [...text];
  if (chars.length <= TITLE_MAX_CHARS) return text;
  return `${chars
    .slice(0, TITLE_MAX_CHARS - 1)
    .join('')
    .trimEnd()}…`;
}
