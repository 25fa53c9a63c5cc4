// What a browser can observe: only the time. No git, no processes: leases are judged from claim
// and renewal times alone, and the page says so rather than pretending to know more.

import type { Facts } from './core.js';

/** Facts for a board the page evaluates itself: `?now=` when given (reproducible views and
 * links), else the clock. */
export function browserFacts(fixedNow: string | null): Facts {
  return { now: fixedNow ?? new Date().toISOString() };
}

/** What the facts could not tell core, for the header note. */
export function factsNote(facts: Facts): string {
  const commits = Object.keys(facts.commits ?? {}).length > 0;
  const processes = Object.keys(facts.processes ?? {}).length > 0;
  const sessions = Object.keys(facts.sessions ?? {}).length > 0;
  if (!commits && !processes && !sessions) return 'leases from claim and renewal times only';
  const known = [commits && 'commits', processes && 'processes', sessions && 'sessions'].filter(Boolean);
  return `leases from claims, renewals and ${known.join(', ')}`;
}
