#!/usr/bin/env bash
# Regenerates every credential in this folder with the openssl CLI. FOR TESTS ONLY: see README.md.
# Usage: bash certs-test/generate.sh [--clients|--legacy]   (writes into the folder this script is in;
#        --clients: only the client certificates, signed by the CAs already here;
#        --legacy: only client-voip.legacy.p12, from the client-voip.pem and .key already here)
set -euo pipefail
cd "$(dirname "$0")"
rm -rf tmp && mkdir tmp
trap 'rm -rf tmp' EXIT

BUNDLE=com.ringside.testapp
DAYS=9000            # about 25 years, so tests do not rot
SUBJ_BASE="/O=Ringside Test/C=US"

ec_key() { openssl ecparam -name prime256v1 -genkey -noout -out "$1"; }
# Apple issues APNs client certificates for RSA 2048 keys; PKCS#8 ("BEGIN PRIVATE KEY") is what every
# client reads (Go's sideshow/apns2 reads PKCS#1 or PKCS#8 RSA keys, not SEC1 EC keys).
rsa_key() { openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$1" 2>/dev/null; }

cat > tmp/ext.cnf <<CNF
[ca]
basicConstraints=critical,CA:TRUE
keyUsage=critical,keyCertSign,cRLSign
subjectKeyIdentifier=hash

[server]
basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1,DNS:api.push.apple.com,DNS:api.sandbox.push.apple.com,DNS:api.development.push.apple.com

# Client certificates as Apple issues them (docs/apns-facts.md §5): 1.2.840.113635.100.6.3.1 marks the
# sandbox (development) environment, .2 production, .6 lists topics, each followed by its type.
[client_voip]
basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=clientAuth
1.2.840.113635.100.6.3.1=ASN1:NULL
1.2.840.113635.100.6.3.2=ASN1:NULL
1.2.840.113635.100.6.3.6=ASN1:SEQUENCE:topics_voip

[client_novoip]
basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=clientAuth
1.2.840.113635.100.6.3.1=ASN1:NULL
1.2.840.113635.100.6.3.2=ASN1:NULL
1.2.840.113635.100.6.3.6=ASN1:SEQUENCE:topics_novoip

[client_sandbox_only]
basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=clientAuth
1.2.840.113635.100.6.3.1=ASN1:NULL
1.2.840.113635.100.6.3.6=ASN1:SEQUENCE:topics_voip

[client_production_only]
basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=clientAuth
1.2.840.113635.100.6.3.2=ASN1:NULL
1.2.840.113635.100.6.3.6=ASN1:SEQUENCE:topics_voip

# A certificate from the test CA that is not an APNs certificate at all: no topics, no environment.
[client_plain]
basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=clientAuth

[topics_voip]
t1=UTF8:${BUNDLE}
t1type=SEQUENCE:type_app
t2=UTF8:${BUNDLE}.voip
t2type=SEQUENCE:type_voip
t3=UTF8:${BUNDLE}.complication
t3type=SEQUENCE:type_complication

[topics_novoip]
t1=UTF8:${BUNDLE}
t1type=SEQUENCE:type_app

[type_app]
t=UTF8:app
[type_voip]
t=UTF8:voip
[type_complication]
t=UTF8:complication

# For the expired certificate: 'openssl ca' is the CLI's way to set dates in the past.
[ca_cmd]
default_ca=expired_ca
[expired_ca]
database=tmp/index.txt
new_certs_dir=tmp
serial=tmp/serial
default_md=sha256
policy=any
copy_extensions=none
[any]
UID=optional
CN=optional
O=optional
C=optional
CNF
touch tmp/index.txt; echo 1000 > tmp/serial

# The default pair as a .p12 that Go's golang.org/x/crypto/pkcs12 (sideshow/apns2's
# certificate.FromP12File) can read: it knows only a SHA-1 MAC and the SHA-1 PBEs, and expects exactly
# two bags, a key and one certificate. OpenSSL 3's defaults (AES-256-CBC with PBKDF2, a SHA-256 MAC)
# and a CA as a third bag are refused. 3DES for both bags needs no legacy provider (RC2, -legacy's
# default for certificates, would).
legacy_p12() {
  openssl pkcs12 -export -in client-voip.pem -inkey client-voip.key -name "Apple Push Services" \
    -keypbe PBE-SHA1-3DES -certpbe PBE-SHA1-3DES -macalg sha1 -out client-voip.legacy.p12 -passout pass:ringside
}
if [ "${1:-}" = "--legacy" ]; then
  legacy_p12
  echo "certs-test: client-voip.legacy.p12 regenerated in $(pwd)"
  exit 0
fi

if [ "${1:-}" != "--clients" ]; then
# Test CA, and a second CA that no test trusts.
ec_key ca.key
openssl req -new -x509 -key ca.key -out ca.pem -days $DAYS -subj "/CN=Ringside Test CA (tests only)$SUBJ_BASE" \
  -extensions ca -config tmp/ext.cnf
ec_key untrusted-ca.key
openssl req -new -x509 -key untrusted-ca.key -out untrusted-ca.pem -days $DAYS \
  -subj "/CN=Ringside Untrusted CA (tests only)$SUBJ_BASE" -extensions ca -config tmp/ext.cnf

# Server certificate for loopback and Apple's host names.
ec_key server.key
openssl req -new -key server.key -out tmp/server.csr -subj "/CN=localhost$SUBJ_BASE"
openssl x509 -req -in tmp/server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days $DAYS \
  -extfile tmp/ext.cnf -extensions server

# The same names, signed by the untrusted CA: the fault "a server certificate the provider does not trust".
ec_key server-untrusted.key
openssl req -new -key server-untrusted.key -out tmp/server-untrusted.csr -subj "/CN=localhost$SUBJ_BASE"
openssl x509 -req -in tmp/server-untrusted.csr -CA untrusted-ca.pem -CAkey untrusted-ca.key -CAcreateserial \
  -out server-untrusted.pem -days $DAYS -extfile tmp/ext.cnf -extensions server

fi

client() { # name section ca-prefix key-kind
  local name=$1 section=$2 ca=${3:-ca} kind=${4:-rsa}
  ${kind}_key "client-$name.key"
  openssl req -new -key "client-$name.key" -out "tmp/$name.csr" \
    -subj "/UID=$BUNDLE/CN=Apple Push Services: $BUNDLE/OU=RINGTEAM01$SUBJ_BASE"
  openssl x509 -req -in "tmp/$name.csr" -CA "$ca.pem" -CAkey "$ca.key" -CAcreateserial \
    -out "client-$name.pem" -days $DAYS -extfile tmp/ext.cnf -extensions "$section"
}
client voip client_voip
# The default pair's key also as a PKCS#1 file ("BEGIN RSA PRIVATE KEY"), as older providers keep it.
openssl pkey -in client-voip.key -traditional -out client-voip.pkcs1.key 2>/dev/null \
  || openssl rsa -in client-voip.key -traditional -out client-voip.pkcs1.key
# The same certificate for an EC key (SEC1 file), for clients' edge cases.
client voip-ec client_voip ca ec
client novoip client_novoip
client sandbox-only client_sandbox_only
client production-only client_production_only
client untrusted client_voip untrusted-ca
rsa_key client-plain.key
openssl req -new -key client-plain.key -out tmp/plain.csr -subj "/CN=Not an APNs certificate$SUBJ_BASE"
openssl x509 -req -in tmp/plain.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out client-plain.pem -days $DAYS \
  -extfile tmp/ext.cnf -extensions client_plain

# Expired: valid 2020-01-01 to 2021-01-01, otherwise the same as client-voip.
rsa_key client-expired.key
openssl req -new -key client-expired.key -out tmp/expired.csr \
  -subj "/UID=$BUNDLE/CN=Apple Push Services: $BUNDLE/O=Ringside Test/C=US"
openssl ca -batch -config tmp/ext.cnf -name expired_ca -cert ca.pem -keyfile ca.key -in tmp/expired.csr \
  -out client-expired.pem -startdate 20200101000000Z -enddate 20210101000000Z -extfile tmp/ext.cnf \
  -extensions client_voip -notext 2>/dev/null
rm -f ca.srl untrusted-ca.srl
# Every client certificate also as a .p12 bundle with its key and CA (password: ringside), as many
# providers load it.
for pem in client-*.pem; do
  name=${pem%.pem}
  issuer=ca.pem; [ "$name" = client-untrusted ] && issuer=untrusted-ca.pem
  openssl pkcs12 -export -in "$pem" -inkey "$name.key" -certfile "$issuer" -name "Apple Push Services" \
    -out "$name.p12" -passout pass:ringside
done
legacy_p12
[ "${1:-}" = "--clients" ] && { echo "certs-test: client certificates regenerated in $(pwd)"; exit 0; }

# ES256 signing keys (.p8, PKCS#8) named as Apple names them: AuthKey_<KEYID>.p8.
p8() { openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt -out "AuthKey_$1.p8"; }
for k in RINGKEY001 RINGKEY002 RINGKEY003 RINGKEY004 RINGKEY005 RINGKEY999; do p8 $k; done
echo "certs-test: regenerated in $(pwd)"
