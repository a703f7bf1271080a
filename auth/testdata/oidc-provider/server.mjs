// A real authorization server for auth's end-to-end test: npm oidc-provider,
// configured for resource indicators (RFC 8707) with JWT access tokens (RFC 9068),
// dynamic registration, PKCE, and the client credentials grant. It logs in and
// consents on the user's behalf at once (account "alice"), so that a client can run
// the authorization code flow headlessly by following redirects with a cookie jar.
//
// Started by the Go test: node server.mjs; prints "issuer <URL>" once listening on
// 127.0.0.1, and serves until stdin closes.
import http from 'node:http';
import crypto from 'node:crypto';
import Provider from 'oidc-provider';

const ec = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
const rsa = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = (k, kid, alg) => ({ ...k.privateKey.export({ format: 'jwk' }), kid, alg, use: 'sig' });

const server = http.createServer();
server.listen(0, '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    jwks: { keys: [jwk(ec, 'ec-1', 'ES256'), jwk(rsa, 'rsa-1', 'RS256')] },
    clients: [{
      client_id: 'machine', client_secret: 'machine-secret',
      grant_types: ['client_credentials'], response_types: [], redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
    }],
    scopes: ['openid', 'offline_access', 'mcp:read', 'mcp:write'],
    pkce: { required: () => true },
    findAccount: async (ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: async (ctx, resource) => ({
          scope: 'mcp:read mcp:write',
          audience: resource,
          accessTokenTTL: 600,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'ES256' } },
        }),
      },
    },
    interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
    ttl: { AccessToken: 600, ClientCredentials: 600, Grant: 3600, Interaction: 600, Session: 3600, AuthorizationCode: 60, RefreshToken: 3600 },
  });
  provider.proxy = false;
  const callback = provider.callback();
  server.on('request', async (req, res) => {
    if (!req.url.startsWith('/interaction/')) return callback(req, res);
    try {
      const details = await provider.interactionDetails(req, res);
      const { prompt, params } = details;
      let result;
      if (prompt.name === 'login') {
        result = { login: { accountId: 'alice' } };
      } else {
        // Consent to everything asked for: OIDC scopes, and the scopes of each
        // requested resource.
        const grant = details.grantId
          ? await provider.Grant.find(details.grantId)
          : new provider.Grant({ accountId: details.session.accountId, clientId: params.client_id });
        const missing = prompt.details;
        if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
        if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
        for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes || {})) {
          grant.addResourceScope(indicator, scopes.join(' '));
        }
        result = { consent: { grantId: await grant.save() } };
      }
      await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: true });
    } catch (err) {
      res.statusCode = 500;
      res.end(String(err));
    }
  });
  process.stdout.write(`issuer ${issuer}\n`);
});
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
