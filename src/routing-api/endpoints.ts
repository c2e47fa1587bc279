/** The hosted Token Routing Service (the production URL; docs/spec/token-routing-service.md); kept apart so help texts need no client code. */
export const productionServiceUrl = 'https://router.nodefinance.org';
