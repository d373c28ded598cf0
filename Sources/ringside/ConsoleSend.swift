import APNs
import Foundation
import MockAPNs
import Provider
import Scenario

/// The console's "send a test push" (issue 49, `POST /console/send`): the push the page composed,
/// sent to this `serve`'s own APNs port with the test credentials, as `ringside send` sends it, and
/// told as `send` tells it — with the curl command that does the same. Values are sent as given,
/// right or wrong (the mock judges them), but never into another header or another path: a value
/// with a control character, or a token that is not letters and digits, is refused.
enum ConsoleSend {
    static func answer(_ body: [UInt8], url: String, certs: String) -> (status: Int, json: String) {
        guard let input = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            return refusal("the body is a JSON object: {\"token\": …, \"pushType\": …, \"priority\": …}")
        }
        let known = ["token", "topic", "pushType", "priority", "expiration", "payload"]
        if let unknown = input.keys.sorted().first(where: { !known.contains($0) }) {
            return refusal(
                "<\(OutsideText.visible(String(unknown.prefix(40))))> is not a field; the fields: \(known.joined(separator: ", "))"
            )
        }
        var values: [String: String] = [:]
        for key in known where input[key] != nil {
            guard let value = input[key] as? String, value.utf8.count <= (key == "payload" ? 8192 : 200) else {
                return refusal("<\(key)> takes text (at most \(key == "payload" ? 8192 : 200) bytes)")
            }
            guard key == "payload" || !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f })
            else {
                return refusal("<\(key)> holds a control character: a header value is one line")
            }
            values[key] = value
        }
        guard let token = values["token"], !token.isEmpty,
            token.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
        else { return refusal("<token> takes the device token: letters and digits (a phone's is 64 hex digits)") }
        var headers: [(name: String, value: String)] = []
        for (key, name, fallback) in [
            ("topic", "apns-topic", ProviderContract.voipTopic), ("pushType", "apns-push-type", "voip"),
            ("priority", "apns-priority", "10"), ("expiration", "apns-expiration", "0"),
        ] {
            let value = values[key] ?? fallback
            if value != "none" { headers.append((name, value)) }
        }
        headers.append(("apns-id", UUID().uuidString.lowercased()))
        let payload =
            values["payload"] ?? #"{"aps":{},"callUUID":"\#(UUID().uuidString.lowercased())","handle":"console"}"#
        let push = OutgoingPush(deviceToken: token, payload: Array(payload.utf8), headers: headers)
        let configuration = ClientConfiguration(
            url: url, caFile: url.hasPrefix("https") ? certs + "/ca.pem" : nil,
            authentication: .token(
                keyFile: "\(certs)/AuthKey_\(ProviderContract.keyId).p8", keyId: ProviderContract.keyId,
                teamId: ProviderContract.teamId), timeout: 5)
        let curl = SendCommand.curlCommand(push, configuration)
        do {
            let (lines, answer) = try SendCommand.exchange(push, configuration)
            let object: [String: Any] = [
                "status": answer.status, "apnsId": answer.apnsId ?? headers.last!.value, "lines": lines, "curl": curl,
            ]
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            return (200, String(decoding: data, as: UTF8.self))
        } catch {
            return (502, errorJSON("the push could not be sent: \(error)"))
        }
    }

    private static func refusal(_ message: String) -> (status: Int, json: String) { (400, errorJSON(message)) }

    private static func errorJSON(_ message: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: ["error": message])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
