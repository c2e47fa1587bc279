/**
 * Every kind of event the ledger records about a trade, decided here once, with the words that say it to people:
 * code records a kind of this list (the type refuses any other), and reads the words from here, never a kind's text.
 */
export const eventKinds = {
  resumed: 'resumed from the ledger after a restart',
  'route-refused': "a route refused because of one pool's state now: another route asked for without it",
  rebroadcast: 'sent again, byte for byte: the node had lost it',
  replace: 'replaced on its nonce with higher fees: it was stuck',
  cancel: 'cancelled on its nonce by a transfer of nothing to the wallet itself',
  'stuck-at-fee-cap': 'stuck, and its fees are at the cap: left to wait',
  'waiting-behind': "waiting behind the wallet's lower nonce still in flight",
  'receipt-not-in-chain': 'a receipt the chain does not hold (a reorg, or a node making it up): followed on',
  'seen-in-block': 'seen in a block whose receipt the node does not give yet',
  'key-used-elsewhere': 'its nonce was used by a transaction routekeeper did not sign: the key is used elsewhere',
  'nonce-used-elsewhere': 'the node counts more transactions of the wallet than the ledger signed',
  'nonce-filled': 'a nonce the node refused was filled by a cancellation, so that later ones can mine',
  'send-refused': 'the node refused a send',
  'broadcast-uncertain': 'a send whose answer was lost: followed as if sent',
  adopted: 'mined before the last process recorded it: its outcome adopted',
  anomaly: 'mined, and what the wallet received cannot be trusted: strategy and wallet paused',
  'balance-check-skipped': 'the balances after it could not be read for its block alone',
  'stored-record-refused': 'a stored row that claims to authorize a signature failed its proof: nothing sent, strategy and wallet paused',
} as const;

export type EventKind = keyof typeof eventKinds;
