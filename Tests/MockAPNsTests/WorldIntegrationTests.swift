import APNs
import Foundation
import TestSupport
import Testing

/// The world through a real client on a real socket: aioapns pushes, curl reads the control API
/// (the rest of the world's behaviour through the mock is in MockAPNsUnitTests, in memory).
@Suite(.serialized) struct WorldIntegrationTests {
    @Test(
        "aioapns pushes to a phone: it rings; to the app's regular token with the .voip topic: DeviceTokenNotForTopic")
    func aioapns() throws {
        let world = try WorldServer()
        let phone = try world.phone()
        let results = try ThirdPartyClientTests.send(
            [
                "\(world.server.port)", Paths.ca, "--key", Paths.certs + "/AuthKey_RINGKEY001.p8", "RINGKEY001",
                "RINGTEAM01", Paths.topic,
            ],
            pushes: [
                ["token": phone.voip, "message": ["callUUID": "call-9", "handle": "carol"]], ["token": phone.alert],
            ])
        #expect(results.map { $0["status"] as? String } == ["200", "400"])
        #expect(results.last?["description"] as? String == "DeviceTokenNotForTopic")
        let fate = try world.outcome(apnsId: try #require(results.first?["apns_id"] as? String))
        #expect(fate["outcome"] as? String == "rang")
    }
}
