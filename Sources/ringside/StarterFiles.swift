/// What `ringside init` writes. The CI recipes are docs/ci.md's (a test keeps the two equal).
enum StarterFiles {
    static let all: [(path: String, text: String)] = [
        ("README.md", readme), ("exec-curl.ring", execCurl), ("http-service.ring", httpService),
        ("example-service.py", exampleService), ("ci/github-actions.yml", githubActions),
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
        - `ci/` — jobs for GitHub Actions and GitLab CI that run this folder and keep JUnit and HTML
          reports.

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

    static let exampleService = #"""
        #!/usr/bin/env python3
        """A stand-in push provider for http-service.ring, in Python's standard library.

        It reads the provider contract from the environment (APNS_URL, APNS_CA_FILE, APNS_VOIP_TOPIC,
        APNS_KEY_FILE, APNS_KEY_ID, APNS_TEAM_ID) and listens on PORT:
          GET  /health                                    200 when ready
          POST /register   {"user": …, "token": …}
          POST /unregister {"token": …}
          POST /call       {"user": …, "callId": …, "caller": …}  one VoIP push per token of the user
        It signs its JWT with the openssl CLI, pushes with curl --http2, and forgets a token that APNs
        answers 410 for. Replace it with your own service.
        """
        import base64, http.server, json, os, subprocess, time

        TOKENS = {}  # token -> user
        JWT = {"value": None, "issued": 0}


        def b64url(data):
            return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


        def jwt():
            if not JWT["value"] or time.time() - JWT["issued"] > 50 * 60:  # one JWT per 50 minutes
                header = b64url(json.dumps({"alg": "ES256", "kid": os.environ["APNS_KEY_ID"]}).encode())
                issued = int(time.time())
                claims = b64url(json.dumps({"iss": os.environ["APNS_TEAM_ID"], "iat": issued}).encode())
                signature = subprocess.run(["openssl", "dgst", "-sha256", "-sign", os.environ["APNS_KEY_FILE"]],
                                           input=f"{header}.{claims}".encode(), capture_output=True,
                                           check=True).stdout
                JWT["value"], JWT["issued"] = f"{header}.{claims}.{b64url(signature)}", issued
            return JWT["value"]


        def push(token, call_id, caller):
            payload = json.dumps({"aps": {}, "callUUID": call_id, "handle": caller})
            result = subprocess.run(
                ["curl", "-s", "--http2", "--cacert", os.environ["APNS_CA_FILE"], "-o", "/dev/null",
                 "-w", "%{http_code}", "-H", f"authorization: bearer {jwt()}",
                 "-H", f"apns-topic: {os.environ['APNS_VOIP_TOPIC']}", "-H", "apns-push-type: voip",
                 "-H", "apns-priority: 10", "-H", "apns-expiration: 0", "--data-binary", payload,
                 f"{os.environ['APNS_URL']}/3/device/{token}"],
                capture_output=True, text=True)
            if result.stdout == "410":
                TOKENS.pop(token, None)  # Unregistered: never push this token again
            return result.stdout


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
                    TOKENS[data["token"]] = data["user"]
                elif self.path == "/unregister":
                    TOKENS.pop(data["token"], None)
                elif self.path == "/call":
                    tokens = [token for token, user in list(TOKENS.items()) if user == data["user"]]
                    return self.answer(200, {"pushes": [push(t, data["callId"], data["caller"]) for t in tokens]})
                else:
                    return self.answer(404, {})
                self.answer(200, {})


        http.server.ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), Handler).serve_forever()
        """#

    static let githubActions = #"""
        # .github/workflows/ringside.yml: the scenarios in ringside/ on every push, in two shards.
        # RINGSIDE_TARBALL_URL: where your team keeps the release (scripts/package.sh writes it).
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
              - name: Install Ringside
                run: |
                  test -n "$RINGSIDE_TARBALL_URL" || { echo "set the repository variable RINGSIDE_TARBALL_URL"; exit 1; }
                  curl -sSfL "$RINGSIDE_TARBALL_URL" | tar xz
                  echo "$PWD/$(ls -d ringside-*/ | head -n 1)bin" >> "$GITHUB_PATH"
                env:
                  RINGSIDE_TARBALL_URL: ${{ vars.RINGSIDE_TARBALL_URL }}
              - name: Run the scenarios
                run: ringside run --format github --shard ${{ matrix.shard }}/2 --junit junit-${{ matrix.shard }}.xml --report report-${{ matrix.shard }}.html ringside/
              - uses: actions/upload-artifact@v4
                if: always()
                with:
                  name: ringside-${{ matrix.shard }}
                  path: |
                    junit-${{ matrix.shard }}.xml
                    report-${{ matrix.shard }}.html
        """#

    static let gitlabCI = #"""
        # .gitlab-ci.yml: the scenarios in ringside/ in two parallel jobs, JUnit shown in merge requests.
        # RINGSIDE_TARBALL_URL: where your team keeps the release (scripts/package.sh writes it).
        ringside:
          image: debian:12
          parallel: 2
          before_script:
            - apt-get update -qq && apt-get install -y -qq curl ca-certificates libnghttp2-14 libssl3 libcurl4 python3 openssl
            - test -n "$RINGSIDE_TARBALL_URL" || { echo "set the CI/CD variable RINGSIDE_TARBALL_URL"; exit 1; }
            - curl -sSfL "$RINGSIDE_TARBALL_URL" | tar xz
            - export PATH="$PWD/$(ls -d ringside-*/ | head -n 1)bin:$PATH"
          script:
            - ringside run --shard $CI_NODE_INDEX/$CI_NODE_TOTAL --junit junit.xml --report report.html ringside/
          artifacts:
            when: always
            paths: [report.html]
            reports:
              junit: junit.xml
        """#
}
