/**
 * Why a trade ended without one, or stopped on its way, as a closed list decided once, with the words that say it
 * to people: one cause is one class wherever it shows (the ledger, the status page, webhooks, metrics). It imports
 * nothing, so the ledger reads a stored class without reaching up to the errors it comes from (src/trade/classify-failure.ts).
 */
export const failureClasses = {
  refused: 'a guard refused it; nothing was signed',
  'no-route': 'the routing service found no route',
  service: 'the routing service failed, or answered nothing usable',
  node: "the chain's node failed",
  rejected: 'the node took none of its transactions',
  reverted: 'reverted on chain',
  cancelled: 'cancelled: the stuck trade was replaced by a transfer of nothing',
  interrupted: 'interrupted: resumed at the next start, or given up before it was signed',
  'outcome-unknown': 'sent, and the chain has not shown what happened yet',
  'key-used-elsewhere': 'its nonce was used by a transaction routekeeper did not sign',
  'lease-lost': "another daemon holds the wallet's lease",
  'stored-record-refused': 'a stored row that claims to authorize it failed its proof',
  unexpected: 'a failure routekeeper does not expect (a bug: the log says more)',
} as const;

export type FailureClass = keyof typeof failureClasses;

/** Names a ledger written before the classes stored for them. */
const earlierNames: Record<string, FailureClass> = {
  GuardRefusal: 'refused',
  NoRouteError: 'no-route',
  ServiceError: 'service',
  TransactionReverted: 'reverted',
  TransactionRevertedError: 'reverted',
  Cancelled: 'cancelled',
  TransactionRejected: 'rejected',
  Interrupted: 'interrupted',
  AbortedError: 'interrupted',
  OutcomeUnknownError: 'outcome-unknown',
  KeyUsedElsewhereError: 'key-used-elsewhere',
  LeaseLostError: 'lease-lost',
  NodeUnavailableError: 'node',
};

/** A class as stored: one of the list, or a name an earlier version stored for it (else `unexpected`). */
export function failureClassStored(stored: string): FailureClass {
  if (stored in failureClasses) return stored as FailureClass;
  if (stored in earlierNames) return earlierNames[stored] as FailureClass;
  return /Service|Quote|Route|RateLimited|Unauthorized|BadRequest|Timeout/.test(stored) ? 'service' : 'unexpected';
}
