/**
 * Every command's name, summary and help, with a loader for its code: `--help`, `--version` and a mistyped
 * command answer without importing viem or the engine, and a command loads only what it uses.
 */
import { type CommandContext, commonHelp, defaultOnceWait } from './command.ts';
import { productionServiceUrl } from '../routing-api/endpoints.ts';
import { schemaPath } from './schema-path.ts';

export type CommandEntry = {
  name: string;
  summary: string;
  /** The full `--help` text. */
  help: string;
  /**
   * The command stops gracefully at the first SIGINT/SIGTERM (its `shutdown.signal` aborts; a second exits 130).
   * Any other command exits 130 at once.
   */
  graceful?: true;
  /** Loads the command; its `run` resolves to the process exit code. */
  load(): Promise<{ run(argv: string[], context: CommandContext): Promise<number> }>;
};

export const commands: CommandEntry[] = [
  {
    name: 'init',
    summary: 'write a first strategy file and .env for a chain, by asking (or from flags)',
    help: `Usage: routekeeper init [--chain celo|devnet] [--rpc-url <url>] [--key-env <NAME>] [--strategies <kinds>]
                        [--take-profit <price>] [--config <file>] [--dotenv <file>] [--force] [--yes]
                        [--keystore <file> [--password-file <file>]]

Asks for the chain, its RPC URL, the environment variable holding the wallet's key (and, hidden, the key for
.env), and a first strategy of each kind you want, with safe defaults (0.5% slippage, 1% from the independent
price at most, exact approvals, a budget on every DCA, first runs at their slot). Writes a strategy file that
'routekeeper check' accepts and a .env (mode 600) naming it; the key never goes into the strategy file.
A flag answers its question; in a script (no terminal, or --yes) every question without a flag takes its default.
Nothing is written if any answer is wrong, and an existing file is kept unless --force.

Options:
  --chain celo|devnet      celo: Celo mainnet, real funds; devnet: the embedded devnet (default)
  --rpc-url <url>          the chain's JSON-RPC URL (celo; several separated by commas fail over)
  --key-env <NAME>         the variable that holds the wallet's key (default ROUTEKEEPER_PRIVATE_KEY)
  --strategies <kinds>     first strategies, separated by commas: dca, limit, rebalance, compound (default dca)
  --take-profit <price>    the limit order's take-profit (needed for limit without a terminal)
  -c, --config <file>      the strategy file to write (default strategies.yaml)
  --dotenv <file>          the .env to write (default .env)
  --force                  replace files that exist
  -y, --yes                ask nothing: flags and defaults
  --keystore <file>        write the key to this encrypted keystore (Web3 Secret Storage, as geth and cast
                           write it) instead of the .env; the strategy file names it
  --password-file <file>   the keystore's password (else asked twice at a terminal); the strategy file names it`,
    load: () => import('./init.ts'),
  },
  {
    name: 'run',
    summary: 'run the daemon: every strategy on its schedule, until Ctrl-C',
    help: `Usage: routekeeper run [--config <file>] [--dry-run] [--fork] [--address-book <file>]

Runs the strategies on their schedules until SIGINT or SIGTERM. Unfinished trades from a previous run are
settled with the chain first. Serves /healthz and /metrics on METRICS_PORT (default 9464, 0 = any free port), on METRICS_HOST
(default 127.0.0.1: this machine only).

Options:
${commonHelp}
  --fork                   paper trading: run against a local anvil fork of RPC_URL`,
    graceful: true,
    load: () => import('./run.ts'),
  },
  {
    name: 'once',
    summary: 'run one strategy once, now, and print what it did',
    help: `Usage: routekeeper once <strategy-id> [--config <file>] [--dry-run] [--address-book <file>] [--wait <duration>] [--json]

Runs one strategy once, now (its own slot "once-<time>"), after settling unfinished trades, saying on stderr
what it waits for. Returns within --wait: a trade the chain has not settled by then stays in the ledger as it
is ("outcome not known yet"), and the daemon (routekeeper run) settles it.
Exit 0 when the strategy ran: it traded, found nothing to do, or a guard refused (the reason is printed).
Exit 1 when it did not run (paused, or waiting on an earlier trade whose outcome is not known yet: the line
says which), or a trade failed or its outcome is not known yet; 2 on bad configuration.

Options:
${commonHelp}
  --wait <duration>        how long to wait for the chain and the service in all (default ${defaultOnceWait}; 30s, 2m, …)
  --json                   print the run's report as one JSON object`,
    graceful: true,
    load: () => import('./once.ts'),
  },
  {
    name: 'quote',
    summary: 'ask the routing service for a swap route and print it in human and raw units',
    help: `Usage: routekeeper quote --token-in <symbol|address> --token-out <symbol|address> --amount <amount>
                        [--raw] [--slippage-bps N] [--max-hops N] [--json] [--address-book <file>]

Asks the Token Routing Service for a route and prints it with symbols and decimals read on chain.
Nothing is signed or sent.

Options:
  --token-in, --token-out   a token address, or a symbol from the address book
  --amount                  amount of --token-in in its own units (12.5), or raw units with --raw
  --raw                     --amount is a raw integer (no decimals applied)
  --slippage-bps N          slippage for the minimum output (service default: 10)
  --max-hops N              longest route to consider (service default: 3)
  --json                    print one JSON object (amounts as strings) instead of text
  --address-book <file>     a deployment's address book (the devnet prints one); supplies token symbols,
                            and the RPC and service URLs when the environment does not
Environment:
  RPC_URL                   JSON-RPC node, to read decimals and symbols (default: the address book's)
  ROUTING_SERVICE_URL       the service (default: the address book's, else one run inside this process over the
                            chain's node, as 'routekeeper serve' runs it; the hosted ${productionServiceUrl} is offline)
  ROUTING_API_KEY           optional API key, sent as X-API-KEY`,
    load: () => import('./quote.ts'),
  },
  {
    name: 'check',
    summary: 'validate the strategy file, reach the chain and the service, show balances and allowances',
    help: `Usage: routekeeper check [--config <file>] [--address-book <file>]

Checks the strategy file against the chain (tokens, decimals, amounts, wallet keys), shows the plan (per
strategy what it will do, in human units, and its next 3 run times in UTC), asks the chain and the routing
service whether they answer, and shows each wallet's balances of the tokens its strategies use and its
allowances to the known router and OneClickFarm. Signs nothing. Exit 0 when all is well.`,
    load: () => import('./check.ts'),
  },
  {
    name: 'doctor',
    summary: "check the chain data against the node: code, feeds, factories, sequencer, a price for every strategy's tokens",
    help: `Usage: routekeeper doctor [--config <file>] [--address-book <file>] [--hosted-service <url>] [--fork]

Checks, against the node the configuration names (RPC_URL, or the embedded devnet), what the daemon relies on
before money does: whether the node answers eth_simulateV1 (routes verified by their token flows) and
eth_sendRawTransactionSync; that every address of the chain data has code; that each price feed answers with
the decimals the chain data expects and is fresh; that each factory's init code hash reproduces one of its
real pairs; how many oracle observations Uniswap V3 pools keep; Mento's Broker, its exchanges, each Mento v3 pool
with its oracle adapter and market-hours breaker, and what each Mento proxy runs (against the implementation the
chain data expects, where it lists one); that the L2 sequencer is up past its grace period; that every token a strategy trades has a
price now; that the routing service in use answers, and whether the hosted one answers at all (it went offline
in 2023); that each pair adapter the self-hosted service routes through has code and prices a real pool exactly
as the pool's own arithmetic does; and the router's fee settings. One line per finding (ok, warn, FAIL). Signs
nothing. Exit 1 when a finding fails, such as a strategy that cannot trade.

With --fork, the checks run on a local anvil fork of RPC_URL, and one small swap is made there through each venue
the self-hosted service routes (a pool of each factory, through its adapter and the router, from a wallet of the
strategy file that holds the input): what it paid is held to what routekeeper's model of the pool says, to the
wei. Nothing reaches the real chain, and no key signs.

Options:
  --hosted-service <url>  the hosted service to ask (default ${productionServiceUrl})
  --fork                  also swap through each venue on a local fork of RPC_URL, against the model`,
    load: () => import('./doctor.ts'),
  },
  {
    name: 'deploy-adapter',
    summary: "deploy routekeeper's own contracts no one publishes (Mento v3's pair adapter, the V3 position mover), and write them into an address book",
    help: `Usage: routekeeper deploy-adapter mento-fpmm | v3-range-mover --address-book <file> [--config <file>] [--wallet <name>]

Deploys one of routekeeper's own contracts from a wallet of the strategy file, checks that the chain holds exactly
this build's code at the new address, and writes the address into the address book, creating a book that only adds
to the chain's built-in data if the file does not exist. Pass that book (--address-book) to run, once, serve and
doctor. Once only: a book that already names one of this build's code sends nothing.

  mento-fpmm       Mento v3's fixed-price pools have no published pair adapter, so the routing service cannot route
                   through them until one is deployed: PairMentoFPMM (extras are the pool; it keeps nothing and holds
                   no allowance), written as contracts.adapters.mentoFpmm. The service then routes through the pools
                   the chain data's Mento v3 factory lists, the daemon checks every hop, and doctor holds the
                   adapter's code to this build.
  v3-range-mover   V3RangeMover, written as contracts.v3RangeMover: a V3 position strategy's re-range (removal, ratio
                   swap, mint) and exit (removal and sale) then move in one transaction, all or nothing. The wallet
                   sends the position's NFT to it with instructions; it needs no approval, keeps nothing, and gives
                   the NFT back (or burns it, emptied) in the same transaction. The daemon holds its code to this
                   build at every use.

Options:
  --address-book <file>   the address book to write (created if it does not exist)
  -c, --config <file>     the strategy file whose wallet pays (default: ROUTEKEEPER_CONFIG, else config/strategies.yaml)
  --wallet <name>         the wallet that pays (needed when the strategy file names more than one)
Environment:
  RPC_URL                 the chain's JSON-RPC node (default: the address book's)`,
    load: () => import('./deploy-adapter.ts'),
  },
  {
    name: 'history',
    summary: 'show the ledger: every run, what it traded and why',
    help: `Usage: routekeeper history [--json] [--limit N] [--strategy <id>] [--ledger <file> | --database <url>]

Shows every run, newest first: when, strategy, slot, outcome (traded, nothing, refused, failed, unknown,
anomaly, paused, waiting, dry-run, interrupted) and why; under each run its trades in human units and their
transaction attempts. Reads the ledger without locking it, so it works while the daemon runs.
Default ledger: ROUTEKEEPER_DATA_DIR (default ./data)/ledger.sqlite, else the embedded devnet's.

Options:
  --json             one JSON array of runs, each with its trades (amounts raw, as strings)
  --limit N          at most N intents (default 50)
  --strategy <id>    only this strategy's
  --ledger <file>    read this ledger file
  --database <url>   read the ledger in this PostgreSQL database (default: DATABASE_URL): its network schema, else
                     its newest devnet or fork schema`,
    load: () => import('./history.ts'),
  },
  {
    name: 'migrate',
    summary: "create or update the ledger's tables in PostgreSQL, as the schema's owner; grant a daemons' role its rows",
    help: `Usage: routekeeper migrate [--database <url>] [--schema <name>] [--grant <role>]

Creates the ledger's schema in the PostgreSQL database (DATABASE_URL, or --database) and brings its tables to
this version's, with that URL's role: run it as the role that owns the schema, before daemons of a new version
start. Daemons and the other commands then need only a role that reads and writes rows: --grant names one and
gives it exactly that (the schema's tables and sequences, now and after later migrations). A daemon whose role
cannot change the schema opens a current ledger and refuses an older one, naming this command.

Options:
  --database <url>  the PostgreSQL database (default: DATABASE_URL)
  --schema <name>   the ledger's schema (default: routekeeper, a network's)
  --grant <role>    let this role read and write the ledger's rows, and nothing else`,
    load: () => import('./migrate.ts'),
  },
  {
    name: 'daemons',
    summary: 'list the daemons sharing the ledger: host, pid, wallets held, last renewal',
    help: `Usage: routekeeper daemons [--json] [--ledger <file> | --database <url>]

Lists the daemons that share the ledger (several on one PostgreSQL database, one on a SQLite file): their
host, pid, when they started, how many and which wallets each holds (with its lease's epoch), when each last
renewed (every third of a lease, 5 s by default), and the version of the strategies it runs. A daemon not
renewed for a lease (15 s) is shown as gone: its wallets are taken by the others as its leases run out.
Wallets no daemon holds are listed last. Reads the ledger without locking it.

Options:
  --json             one JSON object: daemons and free wallets
  --ledger <file>    the ledger (default: ROUTEKEEPER_DATA_DIR (default ./data)/ledger.sqlite, else the devnet's)
  --database <url>   the ledger in this PostgreSQL database (default: DATABASE_URL): its network schema, else
                     its newest devnet or fork schema`,
    load: () => import('./daemons.ts'),
  },
  {
    name: 'status',
    summary: 'what each strategy did with the money: P&L, value, gas, fees, last and next run',
    help: `Usage: routekeeper status [--json] [--strategy <id>] [--ledger <file> | --database <url>]

Reads the ledger (no node needed) and prints one screen per strategy, then the wallets:
  dca        invested, received, average price, value now, P&L, against a lump sum at the first trade's price
  rebalance  value of its holdings against holding the starting balances, turnover, trades
  limit      each fill's price against its trigger and the reference price then
  compound   rewards claimed and their value when claimed, position added, yield after gas
and for every strategy: gas (in the native coin and the strategy's value token), routing partner fees,
refusals and failures by reason, last run and its outcome, next run, and whether it is paused.
Values are at the reference prices the daemon last recorded (defaults.valuation.everySeconds).
A running daemon serves the same numbers on its status page and at /api/status.

Options:
  --json             the report as one JSON object (its fields: docs/status-api.md)
  --strategy <id>    only this strategy (and its wallet)
  --ledger <file>    the ledger (default: ROUTEKEEPER_DATA_DIR (default ./data)/ledger.sqlite, else the devnet's)
  --database <url>   the ledger in this PostgreSQL database (default: DATABASE_URL): its network schema, else
                     its newest devnet or fork schema`,
    load: () => import('./status.ts'),
  },
  {
    name: 'pause',
    summary: 'pause a strategy or a wallet (by id, wallet name or address) until resumed',
    help: `Usage: routekeeper pause <strategy-id | wallet-name | wallet-address> [--reason <text>] [--ledger <file> | --database <url>]

Records the pause in the ledger. A running daemon reads pauses before every run, so the paused strategy
(or every strategy of the paused wallet) runs no more from its next slot; a run already under way finishes.
'routekeeper resume <id>' lifts it. A strategy id wins over a wallet of the same name (use --wallet).

Options:
  --wallet <address>   pause this wallet
  --reason <text>      why (shown by status, the status page and resume)
  --ledger <file>      the ledger (default: ROUTEKEEPER_DATA_DIR (default ./data)/ledger.sqlite, else the devnet's)
  --database <url>     the ledger in this PostgreSQL database (default: DATABASE_URL): its network schema, else
                       its newest devnet or fork schema`,
    load: () => import('./pause.ts'),
  },
  {
    name: 'resume',
    summary: 'list pauses, or lift one (a strategy id, wallet name or address)',
    help: `Usage: routekeeper resume [<strategy-id | wallet-name | wallet-address>] [--strategy <id> | --wallet <address>] [--ledger <file> | --database <url>]

A trade whose outcome cannot be trusted (an anomaly: balances that moved otherwise than signed, a receipt
whose amounts disagree) pauses its strategy and its wallet: they trade no more until a person has looked.
'routekeeper pause' pauses by hand. Without an argument, lists the pauses. With one, lifts it; a running
daemon sees that before its next run. Exit 1 when there was no such pause.

Options:
  --strategy <id>      lift the pause of this strategy
  --wallet <address>   lift the pause of this wallet
  --ledger <file>      the ledger (default: ROUTEKEEPER_DATA_DIR (default ./data)/ledger.sqlite, else the devnet's)
  --database <url>     the ledger in this PostgreSQL database (default: DATABASE_URL): its network schema, else
                       its newest devnet or fork schema`,
    load: () => import('./resume.ts'),
  },
  {
    name: 'adopt',
    summary: "start this ledger's record of a wallet used before it knew it, after showing the chain's count",
    help: `Usage: routekeeper adopt [--wallet <name>] [--nonce N] [--paper] [-c <file>] [--address-book <file>] [--ledger <file> | --database <url>]

A ledger keeps every transaction a wallet signs from where its record of the wallet starts. It never takes that
start from a missing row: a wallet the chain shows used (its nonce above 0) with no record here pauses, and signs
nothing, until a person adopts it. Without --nonce, shows the chain's count of the wallet's transactions and what
adopting means (trades signed before are not known to this ledger: one-shot orders, budgets and positions start
afresh), and exits 1. With --nonce N, the count it showed, writes the start there; a count that moved is refused.
Then lift the wallet's pause with 'routekeeper resume'. Reads RPC_URL, else the address book's node.

Options:
  --wallet <name>      the strategy file's wallet (default: its only one)
  --nonce N            the chain's count, as shown: write the start there
  --paper              the ledger is a paper-trading one (a fork of RPC_URL)
  -c, --config <file>  the strategy file (default: ROUTEKEEPER_CONFIG, else config/strategies.yaml)
  --address-book <file>  the node to ask, when RPC_URL is not set
  --ledger <file>      the ledger (default: ROUTEKEEPER_DATA_DIR (default ./data)/ledger.sqlite, else the devnet's)
  --database <url>     the ledger in this PostgreSQL database (default: DATABASE_URL): its network schema, else
                       its newest devnet or fork schema`,
    load: () => import('./adopt.ts'),
  },
  {
    name: 'devnet',
    summary: 'start the local devnet and its routing service, and keep them up until Ctrl-C',
    help: `Usage: routekeeper devnet [--json] [--port N] [--service-port N] [--chain-id N] [--host <address>] [--price SYMBOL=USD]

Starts anvil with the devnet world deployed (test tokens, Uniswap V2 pools, the router,
OneClickFarm, farms and a rewards gauge) and a local Token Routing Service quoting over it.
It mines every transaction at once, and an empty block every 5 s; with --celo-blocks it produces blocks as
Celo mainnet does instead. Its oracle reports the world's prices every minute. Stays up until SIGINT or
SIGTERM, then stops both and exits 0.

Options:
  --celo-blocks     a block every second and none per transaction, each with the base fee Celo's EIP-1559
                    rule gives it (elasticity 5, denominator 400) and never below Celo's 25 gwei floor
  --json            print the address book as exactly one line of JSON on stdout once ready
  --port N          RPC port (default: a free port)
  --service-port N  routing service port (default: a free port)
  --chain-id N      chain id (default 42220, Celo mainnet's)
  --host <address>  the address both listen on (default 127.0.0.1, this machine only; 0.0.0.0 in a container
                    that daemons in other containers reach, as in docker-compose.yml)
  --price SYMBOL=USD
                    the price the oracle reports for a token with a feed (repeatable): --price cUSD=0.95 runs
                    the devnet with its dollar stable off its peg; the pools keep their seeded prices
  -h, --help        this text`,
    graceful: true,
    load: () => import('./devnet.ts'),
  },
  {
    name: 'serve',
    summary: 'run the Token Routing Service for a chain: pools found from its factories, fresh at every block',
    help: `Usage: routekeeper serve [--rpc <url>] [--address-book <file>] [--port N] [--host <address>]
                        [--cache <file> | --no-cache] [--min-reserve N] [--block-time S]
                        [--api-keys <file>] [--partner-store <file>] [--search-budget MS] [--per-client N]

Serves the Token Routing Service API (GET /routes, /earn/deposit, /earn/withdraw, /tokens, /partners/volume, /)
for the chain of its node, the way docs/routing-service.md describes. It finds the pools of every factory the
chain's data names (built in for Celo, or an address book's; no pool list is needed) and keeps each pool's
reserves from the block's own logs: two node requests per block, however many pools. Its index is kept in a file,
so a restart reads only the blocks it missed. Once it answers, its first line on stdout is JSON:
{"url":"http://127.0.0.1:PORT"}. Stays up until SIGINT or SIGTERM.

Options:
  --rpc <url>            the node (default: RPC_URL, else the address book's rpcUrl)
  --address-book <file>  the chain's router, factory, adapter and tokens (the format every command takes)
  --port N               the port (default 8080; 0 = any free port)
  --host <address>       the address it listens on (default 127.0.0.1, this machine only)
  --cache <file>         where the pool index is kept (default ROUTEKEEPER_DATA_DIR/routing-index-<chain id>.json)
  --no-cache             index from the chain at every start
  --min-reserve N        leave out pools holding fewer raw units of either token (default 1000000)
  --block-time S         read the chain's head at most once per S seconds (default: the chain data's block
                         time, 1 on Celo; on a chain of its own, such as the devnet, at every request)
  --api-keys <file>      API keys to accept: a JSON array of {"key", "partner", "feeRecipient"?, "label"?}; quotes
                         with a key carry its partner id, signed with ROUTING_SIGNER_KEY (needed with keys)
  --partner-store <file> where keys (as their SHA-256) and each partner's quoted and executed volume are kept
                         (default ROUTEKEEPER_DATA_DIR/routing-partners-<chain id>.sqlite)
  --search-budget MS     the longest one route search may take; past it, the best route found so far, and the
                         answer says so (default 250)
  --per-client N         requests per second one client address may ask, twice that at once; past it, 429 with
                         Retry-After (default 200; 0 = no limit, for a benchmark)
  -h, --help             this text

Only requests whose Host is a loopback name, or one of ROUTING_ALLOWED_HOSTS, are answered (403 otherwise): a web
page that points its own name at this machine is refused.`,
    graceful: true,
    load: () => import('./serve.ts'),
  },
  {
    name: 'schema',
    summary: "print the strategy file's JSON Schema (for editor completion)",
    help: `Usage: routekeeper schema

Prints the JSON Schema of the strategy file: every field with its description, and no field it does not
know (additionalProperties: false), so an editor flags a typo as the daemon would. The package carries it at
${schemaPath}; in a YAML file, point your editor at it:
# yaml-language-server: $schema=node_modules/routekeeper/${schemaPath}`,
    load: () => import('./schema.ts'),
  },
];
