-- The role docker-compose.yml's daemons connect as: rows only, granted by `routekeeper migrate --grant`. A devnet
-- password, nothing of value; a real deployment creates its role with a secret of its own.
CREATE ROLE routekeeper_daemon LOGIN PASSWORD 'routekeeper_daemon';
