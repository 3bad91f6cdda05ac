/**
 * A CA certificate that `edgesync doctor --probe-writes` uploads and deletes
 * again: self-signed, P-256, valid until 2126. Its private key was thrown
 * away when it was made, so the CA can sign nothing: uploading it lets no
 * client in anywhere.
 */
export const PROBE_CA_PEM = `-----BEGIN CERTIFICATE-----
MIIBrjCCAVOgAwIBAgIUFz371DR5WQHVagVHYFwfg2L+EvAwCgYIKoZIzj0EAwIw
IzEhMB8GA1UEAwwYZWRnZXN5bmMgZG9jdG9yIHByb2JlIENBMCAXDTI2MTEyNzA4
MjM0MVoYDzIxMjYxMTAzMDgyMzQxWjAjMSEwHwYDVQQDDBhlZGdlc3luYyBkb2N0
b3IgcHJvYmUgQ0EwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAARPcGDW1Pt/dy9+
ed3Ckzte77gAeaKV8Iv7nQ476i0aWWCKlqdAhG+hvnibbK6nCXUFk0BaBep/+p0A
iKADurNEo2MwYTAdBgNVHQ4EFgQUgQo7DH+hqmGU7EZEEuc2K+cQ1iowHwYDVR0j
BBgwFoAUgQo7DH+hqmGU7EZEEuc2K+cQ1iowDwYDVR0TAQH/BAUwAwEB/zAOBgNV
HQ8BAf8EBAMCAQYwCgYIKoZIzj0EAwIDSQAwRgIhAPGi7pT7b1BVb3cWEqDS3k6d
PCSfkSJrye39Xv3KLtCIAiEAqfawEJ5303KB1C4hhq3YzjVUdEGNPxk/WQ/dKX42
Afs=
-----END CERTIFICATE-----
`;
