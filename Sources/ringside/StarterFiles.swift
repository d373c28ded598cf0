/// What `ringside init` writes. The CI recipes are docs/ci.md's (a test keeps the two equal).
enum StarterFiles {
    static let all: [(path: String, text: String)] = [
        ("README.md", readme), ("exec-curl.ring", execCurl), ("http-service.ring", httpService),
        ("provider.ring", providerFile), ("example-service.py", exampleService),
        ("ci/github-actions.yml", githubActions),
        ("ci/gitlab-ci.yml", gitlabCI),
    ]

    static let readme = #"""
        # Ringside scenarios

        Each `*.ring` file is a scenario: virtual phones, a push provider, steps, and what must
        happen. `ringside run .` runs them all against a fake APNs (HTTP/2, TLS, real JWT checks) and
        a model of the phone (PushKit → app → CallKit); a failure names the line, what was expected
        and what happened on the wire.

        - `exec-curl.ring` — the `exec` adapter: one command per push. Put your own send command in
          `exec:`, keeping the `{placeholders}`.
        - `http-service.ring` — the `http` adapter: Ringside starts your service, waits for it, asks
          it to register tokens and place calls, and stops it. `example-service.py` stands in for
          your service until you put your own command in `http:`.
        - `provider.ring` — your provider, described once: the bundled library's requirements run
          against it (`ringside run --library --provider-file provider.ring`) and
          each says what your provider does and does not do. `example-service.py` stands in for it: it
          keeps one HTTP/2 connection (Python's `h2`: `apt-get install python3-h2` or `pip install
          h2`) and passes every requirement; `STARTER_MISTAKE=expiration-hour` or
          `STARTER_MISTAKE=connection-per-push` makes a classic mistake, and the requirements about it
          fail.
        - `ci/` — jobs for GitHub Actions and GitLab CI that run this folder and the requirements, and
          keep JUnit and HTML reports.

        Next: `ringside run --report report.html .`, then open report.html. The language:
        docs/scenario-language.md in the Ringside release.
        """#

    static let execCurl = #"""
        # The exec adapter: your provider is one shell command per push. Ringside fills in
        #   {url}    the fake APNs's URL, https://127.0.0.1:PORT
        #   {ca}     the CA file that signs the fake APNs's certificate (trust it, as you trust Apple's)
        #   {jwt}    a provider token signed with the test key (APNS_KEY_FILE, APNS_KEY_ID, APNS_TEAM_ID)
        #   {topic}  your app's VoIP topic: the bundle ID with .voip (APNS_VOIP_TOPIC)
        #   {token}  the device token of the phone the call is for
        #   {payload} the VoIP payload, JSON: {"aps":{},"callUUID":…,"handle":…}
        #   also {callId}, {caller}, {user}, {cert}, {certKey}, {dir}
        # Replace the command with the one your backend runs, keeping the placeholders (in double quotes
        # where a path may hold a space). Write {{ and }} for literal braces.
        scenario: A VoIP push sent with curl rings the phone
        phones:
          - name: alice
        provider:
          exec: curl -sS --http2 --fail-with-body --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}
        steps:
          - register: alice            # alice's app hands its PushKit token to the provider
          - call: alice                # the provider is asked to ring alice
            from: bob
          - expect apns: the push
            count: 1
            status: 200
            header: "apns-push-type: voip"
          - expect phone: alice        # PushKit delivered it, the app reported it to CallKit
            outcome: rang
        """#

    static let httpService = #"""
        # The http adapter: your backend as a long-running service. Ringside starts `http:` with
        # PORT and the provider contract in its environment — APNS_URL, APNS_CA_FILE, APNS_VOIP_TOPIC
        # (bundle ID + .voip), APNS_KEY_FILE, APNS_KEY_ID, APNS_TEAM_ID (token auth) or APNS_CERT_FILE,
        # APNS_CERT_KEY_FILE (certificate auth) — waits until `ready` answers 200 (10 s at most), then
        # sends each template as `METHOD /path body` to http://127.0.0.1:PORT, and stops it at the end.
        # Placeholders: {port} the service's port; {user} the user; {token} the device token; {kind}
        # voip or alert (register); {callId} the call's UUID and {caller} who calls (call); {dir} this
        # file's folder. example-service.py stands in for your service: put your command in `http:`.
        scenario: After a 410 the service forgets the token
        phones:
          - name: alice
        provider:
          http: python3 "{dir}/example-service.py"
          ready: http://127.0.0.1:{port}/health
          register: POST /register {"user":"{user}","token":"{token}"}
          unregister: POST /unregister {"token":"{token}"}
          call: POST /call {"user":"{user}","callId":"{callId}","caller":"{caller}"}
        steps:
          - register: alice
          - call: alice
            from: bob
          - expect phone: alice
            outcome: rang
          - uninstall: alice           # the token dies: APNs answers 410 Unregistered
          - call: alice
            from: bob
          - call: alice
            from: bob
          - expect apns: unregistered  # one 410, then the service never pushes that token again
            count: 1
            status: 410
            reason: Unregistered
          - expect provider: tokens
            never-pushes: alice
        """#

    static let providerFile = #"""
        # Your provider, for the bundled library of requirements:
        #   ringside run --library --provider-file ringside/provider.ring
        # Every scenario that names no provider of its own (a requirement) runs against this one; those
        # that pin a broken provider to demonstrate an incident are skipped. The section is a scenario's
        # `provider:` (builtin, exec, or http with its templates, as in http-service.ring), and `auth:`
        # says how your provider authenticates to APNs: token (a JWT) or certificate. {dir} is this
        # file's folder. Put your service's command in `http:`.
        # `settles-within:` says how late your service may push after a request: the stand-in has
        # pushed when it answers (0s). A service that pushes from a job queue says how late (a queue
        # polled every second: 2s, the default; delayed_job's 5 s: 6s). `call-answers: [2xx, 404]`
        # lets a call to a user without devices answer 404; `call-id-at: data.call.id` says where your
        # app reads the call id, when not at the payload's top.
        provider:
          http: python3 "{dir}/example-service.py"
          ready: http://127.0.0.1:{port}/health
          register: POST /register {"user":"{user}","token":"{token}"}
          unregister: POST /unregister {"token":"{token}"}
          call: POST /call {"user":"{user}","callId":"{callId}","caller":"{caller}"}
          settles-within: 0s
          auth: token
        """#

    static let exampleService = #"""
        #!/usr/bin/env python3
        """A stand-in push provider for provider.ring: what Ringside's requirements ask of yours.

        It reads the provider contract from the environment (APNS_URL, APNS_CA_FILE, APNS_VOIP_TOPIC,
        APNS_KEY_FILE, APNS_KEY_ID, APNS_TEAM_ID) and listens on PORT:
          GET  /health                                    200 when ready
          POST /register   {"user": …, "token": …}        keeps one entry per token
          POST /unregister {"token": …}                   the user logged out: forget the token
          POST /call       {"user": …, "callId": …, "caller": …}  one VoIP push per token of the user
        It keeps ONE HTTP/2 connection to APNs (the `h2` package: pip install h2) and sends every push on
        it: push type voip, priority 10, expiration 0. It signs a JWT (openssl CLI) and reuses it, signing a
        new one after ExpiredProviderToken; forgets a token after 410, BadDeviceToken or ExpiredToken;
        retries 429 and 5xx with exponential back-off; opens a new connection after GOAWAY, a lost
        connection, or two 500s in a row; and verifies APNs's certificate against APNS_CA_FILE.
        STARTER_MISTAKE makes a classic mistake on purpose: expiration-hour (a stored push rings after the
        call is over) or connection-per-push (a new TLS connection for every push).
        """
        import base64, http.server, json, os, socket, ssl, subprocess, threading, time, urllib.parse

        import h2.config, h2.connection, h2.events

        MISTAKE = os.environ.get("STARTER_MISTAKE", "")
        TOKENS = {}  # token -> user
        LOCK = threading.Lock()  # the connection and the tokens: one push at a time, on one connection


        def b64url(data):
            return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


        class APNs:
            def __init__(self):
                self.url = urllib.parse.urlparse(os.environ["APNS_URL"])
                self.context = ssl.create_default_context(cafile=os.environ["APNS_CA_FILE"])
                self.context.set_alpn_protocols(["h2"])
                self.sock, self.conn, self.jwt, self.failures = None, None, None, 0

            def sign(self):
                header = b64url(json.dumps({"alg": "ES256", "kid": os.environ["APNS_KEY_ID"]}).encode())
                claims = b64url(json.dumps({"iss": os.environ["APNS_TEAM_ID"], "iat": int(time.time())}).encode())
                signature = subprocess.run(["openssl", "dgst", "-sha256", "-sign", os.environ["APNS_KEY_FILE"]],
                                           input=f"{header}.{claims}".encode(), capture_output=True, check=True).stdout
                self.jwt = f"{header}.{claims}.{b64url(signature)}"

            def close(self):
                if self.sock:
                    self.sock.close()
                self.sock, self.conn, self.failures = None, None, 0

            def connect(self):
                raw = socket.create_connection((self.url.hostname, self.url.port), timeout=5)
                self.sock = self.context.wrap_socket(raw, server_hostname=self.url.hostname)
                self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
                self.conn.initiate_connection()
                self.sock.sendall(self.conn.data_to_send())

            def send_once(self, token, payload, expiration):
                """One request: (status, reason), or (0, why) when the connection failed."""
                if self.jwt is None:
                    self.sign()
                if self.conn is None or MISTAKE == "connection-per-push":
                    self.close()
                    self.connect()
                stream = self.conn.get_next_available_stream_id()
                self.conn.send_headers(stream, [
                    (":method", "POST"), (":scheme", "https"), (":authority", self.url.hostname),
                    (":path", f"/3/device/{token}"), ("authorization", f"bearer {self.jwt}"),
                    ("apns-topic", os.environ["APNS_VOIP_TOPIC"]), ("apns-push-type", "voip"),
                    ("apns-priority", "10"), ("apns-expiration", expiration)])
                self.conn.send_data(stream, payload, end_stream=True)
                self.sock.sendall(self.conn.data_to_send())
                status, body = 0, b""
                while True:
                    data = self.sock.recv(65536)
                    if not data:
                        self.close()
                        return 0, "connection closed"
                    for event in self.conn.receive_data(data):
                        if isinstance(event, h2.events.ResponseReceived) and event.stream_id == stream:
                            status = int(dict(event.headers)[b":status"])
                        elif isinstance(event, h2.events.DataReceived) and event.stream_id == stream:
                            body += event.data
                            self.conn.acknowledge_received_data(event.flow_controlled_length, stream)
                        elif isinstance(event, h2.events.StreamEnded) and event.stream_id == stream:
                            self.sock.sendall(self.conn.data_to_send())
                            reason = json.loads(body).get("reason", "") if body else ""
                            return status, reason
                        elif isinstance(event, h2.events.StreamReset) and event.stream_id == stream:
                            return 0, "stream refused"  # not processed: send it again
                        elif isinstance(event, h2.events.ConnectionTerminated):
                            self.close()  # GOAWAY: this connection is done; a new one carries the rest
                            return 0, "goaway"
                    self.sock.sendall(self.conn.data_to_send())

            def push(self, token, call_id, caller):
                payload = json.dumps({"aps": {}, "callUUID": call_id, "handle": caller}).encode()
                expiration = str(int(time.time()) + 3600) if MISTAKE == "expiration-hour" else "0"
                status, reason = 0, ""
                for attempt in range(5):
                    with LOCK:  # the connection, one push at a time; never held while backing off
                        if token not in TOKENS:
                            return 0, "forgotten"  # another call met its 410 meanwhile: never push it again
                        try:
                            status, reason = self.send_once(token, payload, expiration)
                        except ssl.SSLCertVerificationError as error:
                            self.close()
                            return 0, f"not APNs: {error.verify_message}"  # an impostor gets nothing, ever
                        except OSError as error:
                            self.close()
                            status, reason = 0, str(error)
                        if status == 403 and reason == "ExpiredProviderToken":
                            self.sign()
                            continue
                        self.failures = self.failures + 1 if status == 500 else 0
                        if self.failures >= 2:
                            self.close()  # a sick connection: retire it
                        if status == 410 or reason in ("BadDeviceToken", "ExpiredToken"):
                            TOKENS.pop(token, None)  # dead: never push this token again
                    if status in (0, 429) or status >= 500:
                        time.sleep(0.2 * 2 ** attempt)  # the other calls go on meanwhile
                        continue
                    break
                return status, reason


        APNS = APNs()


        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def answer(self, status, value):
                body = json.dumps(value).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                self.answer(200 if self.path == "/health" else 404, {})

            def do_POST(self):
                data = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                if self.path == "/register":
                    with LOCK:
                        TOKENS[data["token"]] = data["user"]
                elif self.path == "/unregister":
                    with LOCK:
                        TOKENS.pop(data["token"], None)
                elif self.path == "/call":
                    with LOCK:
                        tokens = [t for t, user in TOKENS.items() if user == data["user"]]
                    pushes = []
                    for token in tokens:
                        status, reason = APNS.push(token, data["callId"], data["caller"])
                        pushes.append({"token": token, "status": status, "reason": reason})
                    return self.answer(200, {"pushes": pushes})
                else:
                    return self.answer(404, {})
                self.answer(200, {})


        http.server.ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), Handler).serve_forever()
        """#

    static let githubActions = #"""
        # .github/workflows/ringside.yml: the scenarios in ringside/ on every push, in two shards, and
        # the bundled library's requirements against your provider (ringside/provider.ring) in the first.
        # RINGSIDE_TARBALL_URL: where your team keeps the release (scripts/package.sh writes it), and
        # RINGSIDE_TARBALL_SHA256: the hash in the .sha256 file written beside it.
        name: ringside
        on: [push, pull_request]
        jobs:
          scenarios:
            runs-on: ubuntu-24.04
            strategy:
              fail-fast: false
              matrix:
                shard: [1, 2]
            steps:
              - uses: actions/checkout@v4
              - name: Install Ringside (the tarball, checked against its published SHA-256)
                run: |
                  test -n "$RINGSIDE_TARBALL_URL" && test -n "$RINGSIDE_TARBALL_SHA256" || { echo "set the repository variables RINGSIDE_TARBALL_URL and RINGSIDE_TARBALL_SHA256"; exit 1; }
                  curl -sSfL -o ringside.tar.gz "$RINGSIDE_TARBALL_URL"
                  echo "$RINGSIDE_TARBALL_SHA256  ringside.tar.gz" | sha256sum -c -
                  tar xzf ringside.tar.gz
                  echo "$PWD/$(ls -d ringside-*/ | head -n 1)bin" >> "$GITHUB_PATH"
                env:
                  RINGSIDE_TARBALL_URL: ${{ vars.RINGSIDE_TARBALL_URL }}
                  RINGSIDE_TARBALL_SHA256: ${{ vars.RINGSIDE_TARBALL_SHA256 }}
              - uses: actions/setup-python@v5
                with:
                  python-version: "3.12"
              - name: Install your provider's dependencies
                # h2 is for init's stand-in service; add what your own service needs to run.
                run: |
                  pip install h2
                  if [ -f requirements.txt ]; then pip install -r requirements.txt; fi
              - name: Run the scenarios
                run: ringside run --format github --shard ${{ matrix.shard }}/2 --junit junit-${{ matrix.shard }}.xml --report report-${{ matrix.shard }}.html ringside/
              - name: Run the bundled requirements against your provider
                if: matrix.shard == 1
                run: ringside run --format github --jobs 2 --junit requirements.xml --report requirements.html --provider-file ringside/provider.ring --library
              - uses: actions/upload-artifact@v4
                if: always()
                with:
                  name: ringside-${{ matrix.shard }}
                  path: |
                    junit-${{ matrix.shard }}.xml
                    report-${{ matrix.shard }}.html
                    requirements.xml
                    requirements.html
        """#

    static let gitlabCI = #"""
        # .gitlab-ci.yml: the scenarios in ringside/ in two parallel jobs, and the bundled library's
        # requirements against your provider (ringside/provider.ring); JUnit shown in merge requests.
        # RINGSIDE_TARBALL_URL: where your team keeps the release (scripts/package.sh writes it), and
        # RINGSIDE_TARBALL_SHA256: the hash in the .sha256 file written beside it.
        ringside:
          image: debian:12
          parallel: 2
          before_script: &install
            - apt-get update -qq && apt-get install -y -qq curl ca-certificates libnghttp2-14 libssl3 libcurl4 python3 python3-h2 python3-pip openssl
            - test -n "$RINGSIDE_TARBALL_URL" && test -n "$RINGSIDE_TARBALL_SHA256" || { echo "set the CI/CD variables RINGSIDE_TARBALL_URL and RINGSIDE_TARBALL_SHA256"; exit 1; }
            - curl -sSfL -o ringside.tar.gz "$RINGSIDE_TARBALL_URL"
            - echo "$RINGSIDE_TARBALL_SHA256  ringside.tar.gz" | sha256sum -c -
            - tar xzf ringside.tar.gz
            - export PATH="$PWD/$(ls -d ringside-*/ | head -n 1)bin:$PATH"
            # Your provider's own dependencies (python3-h2 above is for init's stand-in service).
            - if [ -f requirements.txt ]; then pip3 install --break-system-packages -r requirements.txt; fi
          script:
            - ringside run --shard $CI_NODE_INDEX/$CI_NODE_TOTAL --junit junit.xml --report report.html ringside/
          artifacts:
            when: always
            paths: [report.html]
            reports:
              junit: junit.xml
        ringside-requirements:
          image: debian:12
          before_script: *install
          script:
            - ringside run --jobs 2 --junit requirements.xml --report requirements.html --provider-file ringside/provider.ring --library
          artifacts:
            when: always
            paths: [requirements.html]
            reports:
              junit: requirements.xml
        """#
}
