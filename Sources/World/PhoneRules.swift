import APNs

/// The phone's rules, top to bottom: what happens to a VoIP push from its arrival on the phone to
/// the ring — PushKit hands it to the app or does not ([SEND]: priority, push type), the app's
/// behaviour, whether it must report the call ([PK-VOIP], [PK-264], A-DTS), the kill when it does
/// not, and what CallKit does with the report ([CX-ERR]: entitlement, duplicates, Focus, blocked
/// callers, a caller who gave up). docs/apns-facts.md §8.3 says each with its source. The world
/// (World.swift) accepts, stores and schedules the push; its memory is PushMemory.swift's.
extension World {
    func arrive(_ number: Int, at now: Double) {
        let id = Int(memory.peek(number, { $0.phone }))
        guard memory.peek(number, { $0.isPending }), id >= 0 else { return }
        if !phones[id].isOnline {
            store(number, phone: id, at: now)
            return
        }
        guard let index = appIndex(of: number, phone: id) else { return appGone(number, at: now) }
        // The fields the phone's rules read, not a copy of the whole app (a retain per string and token).
        let app = phones[id].apps.read(index) { app in
            (
                isVoIPBlocked: app.isVoIPBlocked, unreportedKills: app.unreportedKills, isForceQuit: app.isForceQuit,
                ios: app.ios, isForeground: app.isForeground, behaviour: app.behaviour
            )
        }
        guard memory.peek(number, { $0.kind }) == .voip else {
            finish(number, .notDelivered(.notAVoIPPush), now, .regularNotification)
            return
        }
        // [SEND]: what Apple says may happen to such a push happens here, unless the scenario opts out.
        if !settings.wrongPushesDelivered {
            let priority = memory.peek(number, { $0.priority })
            if priority != .immediate {
                finish(number, .notDelivered(.lowPriority), now, .lowPriority(priority))
                return
            }
            if !memory.peek(number, { $0.hasPushType }) {
                finish(number, .notDelivered(.noPushType), now, .noPushType)
                return
            }
        }
        if app.isVoIPBlocked {
            finish(number, .notDelivered(.appBlocked), now, .appBlocked(kills: app.unreportedKills))
            return
        }
        if app.isForceQuit, settings.folklore.forceQuitBlocksVoIP {
            finish(number, .notDelivered(.forceQuit), now, .forceQuit)
            return
        }
        if let budget = settings.folklore.dailyVoIPBudget {
            let day = Int32(clamping: Int(now / 86_400))
            var used = phones[id].apps[index].budget
            if used.day != day { used = (day, 0) }
            used.count = used.count == .max ? .max : used.count + 1
            phones[id].apps[index].budget = used
            if Int(used.count) > budget {
                finish(number, .notDelivered(.dailyBudget), now, .dailyBudget(budget))
                return
            }
        }
        memory[push: number].deliveredAt = now
        let delay = now - memory.peek(number, { $0.sentAt })
        memory[push: number].note(
            now, .handedToApp(ios: app.ios, delay: delay))
        let mustReport = self.mustReport(
            ios: app.ios, isForeground: app.isForeground, onCall: phones[id].activeCall != nil, delay: delay,
            number: number, at: now)
        switch app.behaviour {
        case .reportsAtOnce:
            report(number, at: now, app: index)
        case .completesBeforeReporting:
            memory[push: number].note(now, .completionFirst)
            report(number, at: now, app: index)
        case .reportsOnlyWellFormed:
            // The call's strings only here: made on another core, each read was a cache miss.
            if memory.peek(number, { $0.callUUID }).map(CallInfo.isCallUUID) == true,
                memory.peek(number, { $0.caller }) != nil
            {
                report(number, at: now, app: index)
            } else {
                memory[push: number].note(now, .notWellFormed)
                didNotReport(number, mustReport: mustReport, at: now)
            }
        case .neverReports:
            memory[push: number].note(now, .neverReports)
            didNotReport(number, mustReport: mustReport, at: now)
        case .reportsAfterRoundTrip(let seconds, let blocking):
            if blocking {
                memory[push: number].note(now, .blockingRoundTrip(seconds))
                if seconds < settings.callServicesCheck || !mustReport {
                    schedule.push(ScheduledEvent(at: now + seconds, kind: .report(number)))
                } else {
                    schedule.push(ScheduledEvent(at: now + settings.callServicesCheck, kind: .systemCheck(number)))
                }
            } else {
                memory[push: number].note(now, .asyncRoundTrip(seconds))
                didNotReport(number, mustReport: mustReport, at: now)
            }
        }
    }

    /// [PK-264], [PK-META]: on iOS 26.4 `mustReport` is false in the foreground, during a call, or after
    /// a long network delay; before that, A-DTS (thread 768136): foreground or an active call.
    func mustReport(
        ios: OSVersion, isForeground: Bool, onCall: Bool, delay: Double, number: Int, at now: Double
    ) -> Bool {
        guard ios >= OSVersion.reportingRule else {
            memory[push: number].note(now, .beforeReportingRule(ios))
            return false
        }
        let newDelegate = ios >= OSVersion.mustReportDelegate
        var why: ChainStep.NoReportReason?
        if isForeground {
            why = .foreground
        } else if onCall {
            why = .onCall
        } else if newDelegate, delay > settings.longNetworkDelay {
            why = .networkDelay(delay)
        }
        if let why {
            memory[push: number].note(now, .noReportRequired(newDelegate: newDelegate, why: why))
            return false
        }
        memory[push: number].note(now, .mustReport(newDelegate: newDelegate))
        return true
    }

    func didNotReport(_ number: Int, mustReport: Bool, at now: Double) {
        if mustReport {
            kill(number, .delegateReturnedWithoutReport, at: now)
        } else {
            finish(number, .notDelivered(.notReportedAllowed), now, .notReportedAllowed)
        }
    }

    func systemCheck(_ number: Int, at now: Double) {
        guard memory.peek(number, { $0.isPending }) else { return }
        kill(number, .callServicesCheck, at: now)
    }

    func kill(_ number: Int, _ rule: KillRule, at now: Double) {
        let id = Int(memory.peek(number, { $0.phone }))
        guard id >= 0 else { return }
        guard let index = appIndex(of: number, phone: id) else { return appGone(number, at: now) }
        phones[id].apps[index].unreportedKills += 1
        let kills = phones[id].apps[index].unreportedKills
        let step: ChainStep
        switch rule {
        case .delegateReturnedWithoutReport:
            step = .killedWhenDelegateReturned(kills: kills, limit: settings.unreportedLimit)
        case .callServicesCheck:
            step = .killedByCallServices(
                check: settings.callServicesCheck, kills: kills, limit: settings.unreportedLimit)
        }
        finish(number, .appKilled(rule), now, step)
        if kills >= settings.unreportedLimit, !phones[id].apps[index].isVoIPBlocked {
            phones[id].apps[index].isVoIPBlocked = true
            memory[push: number].note(now, .voipStopped(kills: kills))
        }
    }

    /// Push `number`'s app was deleted before the push arrived, or while it held it (before its
    /// report or its kill): nothing is left to report the call, and nothing rings. The report and
    /// the kill once returned without this, and the push stayed pending for ever: never told, never
    /// forgotten, one of `maximumPending` (an adversary found it).
    /// An app still installed under that bundle id holds new tokens (reinstalled, rotated): the
    /// push's token is retired, and the new app must not ring for it.
    func appGone(_ number: Int, at now: Double) {
        let id = Int(memory.peek(number, { $0.phone }))
        if id >= 0, phones[id].appIndex(memory.peek(number, { $0.bundleId }) ?? "") != nil {
            finish(number, .notDelivered(.tokenDead), now, .tokenRetired)
        } else {
            finish(number, .notDelivered(.appNotInstalled), now, .appNotInstalled)
        }
    }

    /// `reportNewIncomingCall` ([CX-ERR]): reporting satisfies the rule even when CallKit refuses.
    /// `app`: the app's index when the caller has just found it (an arrival that reports at once).
    func report(_ number: Int, at now: Double, app: Int? = nil) {
        let id = Int(memory.peek(number, { $0.phone }))
        guard memory.peek(number, { $0.isPending }), id >= 0 else { return }
        guard let index = app ?? appIndex(of: number, phone: id) else { return appGone(number, at: now) }
        let (isEntitled, framework, ios) = phones[id].apps.read(index) { ($0.isEntitled, $0.framework, $0.ios) }
        // An app that reports to a framework its iOS lacks reports nothing: PushKit's rule is broken.
        guard ios >= framework.availableFrom else {
            memory[push: number].note(now, .frameworkUnavailable(framework, ios))
            return kill(number, .delegateReturnedWithoutReport, at: now)
        }
        // The call's hash is in the entry and its strings are read only when a rule needs them:
        // the strings were made on another core, and each read or retain was a cache miss.
        let callHash = memory.peek(number, { $0.callHash })
        memory[push: number].note(now, .reported(framework))
        if !isEntitled {
            finish(number, .callRefused(.unentitled), now, .unentitled)
        } else if let callHash, phones[id].apps.read(index, { $0.reportedCalls.contains(callHash) }) {
            // The entry keeps its call id once: the ending does not name it.
            finish(number, ending: .duplicate, now, .duplicate)
        } else if phones[id].doNotDisturb,
            !(memory.peek(number, { $0.caller }).map { phones[id].vipCallers.contains($0) } ?? false)
        {
            finish(number, .callRefused(.filteredByDoNotDisturb), now, .doNotDisturb)
        } else if !phones[id].blockedCallers.isEmpty, let caller = memory.peek(number, { $0.caller }),
            phones[id].blockedCallers.contains(caller)
        {
            finish(number, .callRefused(.filteredByBlockList), now, .blockedCaller)
        } else {
            if let callHash { phones[id].apps[index].reportedCalls.insert(callHash) }
            let placed = placedCalls.isEmpty ? nil : memory.peek(number, { $0.callUUID }).flatMap(placedCalls.time(of:))
            let late = now - (placed ?? memory.peek(number, { $0.sentAt }))
            if late > settings.ringTimeout {
                finish(number, ending: .rangLate(lateBy: late), now, .rangLate(late))
            } else {
                finish(number, ending: .rang, now, .rang)
            }
        }
    }
}
