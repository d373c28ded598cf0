#!/usr/bin/env python3
"""Drives `ringside serve`'s console in a real browser (issue 49): Debian's Chromium, headless, through
Selenium and Debian's chromedriver. While the page is open, aioapns (a real client from PyPI) pushes:
the page must show each push by its apns-id with its headers annotated and its phone's outcome; a
push with priority 5 must show why it missed; a fault armed from the page must change the next
answer. Prints one JSON object with what the page showed; exits 1 naming the first thing it did not.

usage: console_browser.py CONSOLE_URL CONTROL_URL CONTROL_TOKEN APNS_PORT CERTS SCREENSHOT [--block-events]
RINGSIDE (environment): the ringside binary, for a JWT: curl then sends a push whose header and body
hold markup, which the page must show as text.
--block-events: the browser blocks /console/events (the page's live updates switched off): the
negative control, which must fail.
"""
import json
import os
import re
import subprocess
import sys
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

console, control, control_token, apns_port, certs, screenshot = sys.argv[1:7]
block = "--block-events" in sys.argv[7:]
here = os.path.dirname(os.path.abspath(__file__))


def fail(why):
    print(json.dumps({"failed": why}), flush=True)
    sys.exit(1)


def control_post(path, body):
    request = urllib.request.Request(control + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"authorization": "Bearer " + control_token})
    with urllib.request.urlopen(request, timeout=5) as answer:
        return json.load(answer)


def push(token, priority=10):
    """One VoIP push through aioapns (Tests/clients/aioapns_send.py): its answer, with its apns-id."""
    pushes = json.dumps([{"token": token, "priority": priority, "push_type": "voip"}])
    out = subprocess.run(
        [sys.executable, os.path.join(here, "aioapns_send.py"), apns_port, certs + "/ca.pem", "--key",
         certs + "/AuthKey_RINGKEY001.p8", "RINGKEY001", "RINGTEAM01", "com.ringside.testapp.voip", pushes],
        capture_output=True, text=True, timeout=30)
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if not lines:
        fail("aioapns sent nothing: " + out.stderr[-400:])
    return json.loads(lines[-1])


def wait_for(what, check, seconds=5):
    deadline = time.time() + seconds
    while time.time() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    fail(what)


def card(apns_id):
    """The page's card for a push, found by the apns-id it shows."""
    for element in driver.find_elements(By.CSS_SELECTOR, ".push"):
        if element.get_attribute("data-apns-id") == apns_id:
            return element
    return None


def outcome_of(apns_id):
    element = card(apns_id)
    if element is None:
        return None
    outcome = element.find_element(By.CSS_SELECTOR, ".outcome")
    return outcome if outcome.get_attribute("data-outcome") else None


token = control_post("/phones", {"name": "alice"})["apps"][0]["voipToken"]
options = webdriver.ChromeOptions()
for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1300,1400"):
    options.add_argument(flag)
options.binary_location = "/usr/bin/chromium"
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
seen = {}
try:
    if block:
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/console/events*"]})
    driver.get(console)
    seen["title"] = driver.title
    seen["tokenLeftInAddress"] = "token=" in driver.current_url
    wait_for("the page's phones list shows alice",
             lambda: "alice" in driver.find_element(By.ID, "phones").text)
    # A push while the page is open: shown by its apns-id, headers annotated, then its outcome.
    first = push(token)
    seen["first"] = first
    answered = time.time()
    element = wait_for("the page shows the push " + str(first["apns_id"]), lambda: card(first["apns_id"]), 3)
    # Reported, not judged (a test asserts nothing on wall-clock time): from the answer to the page.
    seen["shownAfterSeconds"] = round(time.time() - answered, 3)
    headers = {row.find_elements(By.TAG_NAME, "td")[1].text: row.find_elements(By.TAG_NAME, "td")[3].text
               for row in element.find_elements(By.CSS_SELECTOR, "tr.header")}
    seen["headers"] = headers
    if "apns-priority" not in headers or "apns-push-type" not in headers:
        fail("the push's headers are not annotated: " + json.dumps(headers))
    outcome = wait_for("the page shows the first push's outcome", lambda: outcome_of(first["apns_id"]), 3)
    seen["outcomeAfterSeconds"] = round(time.time() - answered, 3)
    seen["firstOutcome"] = outcome.get_attribute("data-outcome")
    if seen["firstOutcome"] != "rang":
        fail("the first push did not ring: " + outcome.text)
    # Priority 5: the page says why the call missed.
    low = push(token, priority=5)
    outcome = wait_for("the page shows the priority-5 push's outcome", lambda: outcome_of(low["apns_id"]), 5)
    seen["lowOutcome"] = outcome.get_attribute("data-outcome")
    seen["lowStory"] = outcome.text
    seen["lowPriorityNote"] = {
        row.find_elements(By.TAG_NAME, "td")[1].text: row.find_elements(By.TAG_NAME, "td")[3].text
        for row in card(low["apns_id"]).find_elements(By.CSS_SELECTOR, "tr.header")}.get("apns-priority")
    if seen["lowOutcome"] == "rang" or "priority" not in seen["lowStory"].lower():
        fail("the priority-5 push's outcome does not say why it missed: " + outcome.text)
    # A fault armed from the page changes the next answer.
    Select(driver.find_element(By.ID, "fault-reason")).select_by_visible_text("ServiceUnavailable")
    driver.find_element(By.ID, "arm").click()
    wait_for("the page armed the fault", lambda: "ServiceUnavailable" in driver.find_element(By.ID, "fault-answer").text)
    faulted = push(token)
    seen["faulted"] = faulted
    if faulted["status"] != "503":
        fail("the answer after the fault armed from the page was " + str(faulted["status"]))
    wait_for("the page shows the 503", lambda: card(faulted["apns_id"]) is not None and "503" in card(faulted["apns_id"]).text, 3)
    # Outside text is text: a header and a body made of markup show as typed, and run nothing.
    evil = '<img src=x onerror="document.title=1">'
    jwt = subprocess.run([os.environ["RINGSIDE"], "token", "--certs", certs], capture_output=True, text=True).stdout.strip()
    sent = subprocess.run(
        ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--http2", "--cacert", certs + "/ca.pem",
         "-H", "authorization: bearer " + jwt, "-H", "apns-topic: com.ringside.testapp.voip",
         "-H", "apns-push-type: voip", "-H", "apns-priority: 10", "-H", "apns-expiration: 0",
         "-H", "x-note: " + evil, "-d", json.dumps({"aps": {}, "callUUID": "5f6c5d5e-0000-4000-8000-00000000e511",
                                                    "handle": "</script>" + evil}),
         "https://127.0.0.1:%s/3/device/%s" % (apns_port, token)], capture_output=True, text=True)
    seen["hostileStatus"] = sent.stdout
    wait_for("the page shows the markup push as text",
             lambda: evil in driver.find_element(By.ID, "pushes").text, 3)
    seen["imagesInPushes"] = len(driver.find_elements(By.CSS_SELECTOR, "#pushes img"))
    seen["titleAfter"] = driver.title
    if seen["imagesInPushes"] or seen["titleAfter"] != "ringside console":
        fail("markup from a push became part of the page")
    # Send a test push from the page, as Apple's console does: the exchange, the curl command, the outcome.
    Select(driver.find_element(By.ID, "send-priority")).select_by_visible_text("10")
    driver.find_element(By.ID, "send").click()
    wait_for("the page sent its test push", lambda: "\u2190 200" in driver.find_element(By.ID, "send-lines").text, 5)
    seen["sendLines"] = driver.find_element(By.ID, "send-lines").text
    seen["sendCurl"] = driver.find_element(By.ID, "send-curl").text
    if not seen["sendCurl"].startswith("curl "):
        fail("the page shows no curl command for its test push")
    wait_for("the page shows its test push's outcome",
             lambda: driver.find_element(By.ID, "send-outcome").get_attribute("data-outcome"), 5)
    seen["sendOutcome"] = driver.find_element(By.ID, "send-outcome").get_attribute("data-outcome")
    # A flood (h2load, as fast as it goes): the page lists a sample, says so, and counts every push.
    flood = 2000
    body = os.path.join(os.path.dirname(os.path.abspath(screenshot)), "flood-payload.json")
    with open(body, "w") as f:
        json.dump({"aps": {}, "callUUID": "5f6c5d5e-0000-4000-8000-00000000f100", "handle": "flood"}, f)
    out = subprocess.run(
        ["h2load", "-n", str(flood), "-c", "1", "-m", "20", "-H", "authorization: bearer " + jwt,
         "-H", "apns-topic: com.ringside.testapp.voip", "-H", "apns-push-type: voip", "-H", "apns-priority: 10",
         "-H", "apns-expiration: 0", "-d", body, "https://127.0.0.1:%s/3/device/%s" % (apns_port, token)],
        capture_output=True, text=True, timeout=60)
    os.remove(body)
    seen["flood"] = [line for line in out.stdout.splitlines() if "succeeded" in line]
    # What the mock answered: h2load's refused streams at the start (one stream until the JWT is
    # verified, as APNs does) were never requests.
    answered = re.search(r"(\d+) succeeded, (\d+) failed, (\d+) errored", out.stdout)
    flood = int(answered.group(1)) + int(answered.group(2)) - int(answered.group(3)) if answered else flood
    notice = wait_for("the page says it did not list every push of the flood",
                      lambda: "not listed" in driver.find_element(By.ID, "notices").text
                      and driver.find_element(By.ID, "notices").text, 5)
    seen["floodNotice"] = notice
    seen["listed"] = len(driver.find_elements(By.CSS_SELECTOR, "#pushes .push"))
    if seen["listed"] > 200:
        fail("the page listed %d pushes" % seen["listed"])

    def counted():
        text = driver.find_element(By.ID, "metrics").text
        total = sum(int(count) for count in re.findall(r"status \d+: (\d+)", text))
        return total if total >= flood else None
    seen["counted"] = wait_for("the metrics count every push of the flood", counted, 5)
    seen["metrics"] = driver.find_element(By.ID, "metrics").text
    seen["ladder"] = driver.find_element(By.ID, "ladder").text
    driver.save_screenshot(screenshot)
    print(json.dumps(seen), flush=True)
finally:
    driver.quit()
