/** The hosted Token Routing Service (the spec's production URL); kept apart so help texts need no client code. */
export const productionServiceUrl = 'https://router.nodefinance.org';
