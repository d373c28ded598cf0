/// The built-in provider's named behaviours: `reference` follows every best practice, the others
/// each reproduce one classic mistake (the incidents of docs/apns-facts.md §12, each with the
/// scenario that shows it). A vocabulary shared by the scenario language, the command line and the
/// provider, so that the words cannot drift apart.
public enum ProviderProfile: String, Sendable, CaseIterable {
    case reference
    /// Topic without `.voip` (incident 7).
    case forgetsVoipSuffix = "forgets-voip-suffix"
    /// Priority 5: APNs may hold the push to save power.
    case priorityFive = "priority-5"
    /// A non-zero expiration: a stored push rings after the call is over (incident 4).
    case nonZeroExpiration = "non-zero-expiration"
    /// A new JWT for every request: TooManyProviderTokenUpdates (incident 5).
    case newTokenPerRequest = "new-jwt-per-request"
    /// Keeps pushing to tokens answered 410 (incident 2).
    case keepsPushingAfter410 = "keeps-pushing-after-410"
    /// Forgets tokens only on 410, keeps BadDeviceToken ones (incident 2).
    case prunesOnlyOn410 = "prunes-only-on-410"
    /// Retries 503 at once, again and again.
    case noBackoffOn503 = "no-backoff-on-503"
    /// Sends VoIP pushes to the regular notification token (incident 7).
    case usesRegularToken = "uses-regular-token"
    /// Sends a second VoIP push to cancel a call ([PK-VOIP]: don't).
    case cancelsWithPush = "cancels-with-push"
    /// Registers the same device again on every session restore (incident 12).
    case registersTwice = "registers-twice"
    /// Caches one connection and watches only for error answers: after APNs's GOAWAY nothing is sent
    /// again until a restart (incident 1).
    case ignoresGoAway = "ignores-goaway"
    /// Treats every connection failure as transient and reconnects at once, again and again: a
    /// GOAWAY `BadCertificateEnvironment` or a refused certificate becomes a reconnect storm.
    case reconnectStorm = "reconnect-storm"
    /// Retries 5xx on the connection that gave them: a stale connection that answers every request
    /// with 500 is never replaced and the call never rings.
    case sticksToSickConnection = "sticks-to-sick-connection"
    /// Does not verify APNs's certificate: it sends its pushes (and its JWT) to whoever answers.
    case skipsServerVerification = "skips-server-verification"
    /// Sends up to 100 streams on a new connection before reading SETTINGS and gives up on a stream
    /// refused with REFUSED_STREAM (node-apn retries only on HTTP statuses): APNs allows one stream
    /// until a valid JWT, so the other pushes are lost.
    case dropsRefusedStreams = "drops-refused-streams"
}
