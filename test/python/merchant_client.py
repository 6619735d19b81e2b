"""A merchant's integration as a Python shop writes it, with `requests` (a real client).

Signs like the contract says (x-api-key = sha256 hex of "<API_KEY>|<compact JSON body>", GET and
multipart sign "<API_KEY>|"), creates a PAYIN, reads its status and the balance, and uploads a
receipt the way `requests` sends files: `files={"receipt": (name, bytes)}`, a part with no
Content-Type. Prints one JSON line with what it saw. Run by test/python/python-client.test.ts.

Environment: BASE_URL, API_KEY, MERCHANT_ID, RECEIPT_PATH, ORDER_ID.
"""
import hashlib
import json
import os
import sys

import requests

BASE = os.environ["BASE_URL"]
KEY = os.environ["API_KEY"]
MERCHANT = os.environ["MERCHANT_ID"]


def signed_headers(body: str = "") -> dict:
    return {
        "client-api-key": KEY,
        "x-api-key": hashlib.sha256(f"{KEY}|{body}".encode("utf-8")).hexdigest(),
    }


def post_json(path: str, payload: dict) -> requests.Response:
    body = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    headers = {**signed_headers(body), "Content-Type": "application/json"}
    return requests.post(BASE + path, data=body.encode("utf-8"), headers=headers, timeout=10)


def get(path: str) -> requests.Response:
    return requests.get(BASE + path, headers=signed_headers(), timeout=10)


def main() -> None:
    out = {}
    created = post_json(
        "/merchant/createOrder",
        {"merchant_id": MERCHANT, "amount": 1500, "type": "sbp_pdf", "order_id": os.environ["ORDER_ID"],
         "comment": "Заказ №1"},
    )
    out["create"] = [created.status_code, created.json()]
    order_id = created.json()["payment_id"]
    status = get(f"/merchant/order/{order_id}")
    out["status"] = [status.status_code, status.json().get("status")]
    balance = get(f"/merchant/balance/{MERCHANT}")
    out["balance"] = [balance.status_code, balance.json().get("balance")]
    with open(os.environ["RECEIPT_PATH"], "rb") as f:
        receipt = f.read()
    uploaded = requests.post(
        BASE + "/merchant/receipt/upload",
        data={"orderId": order_id},
        files={"receipt": ("receipt.pdf", receipt)},
        headers=signed_headers(),
        timeout=10,
    )
    out["upload"] = [uploaded.status_code, uploaded.json()]
    again = get(f"/merchant/order/{order_id}")
    out["receiptStatus"] = again.json().get("receiptStatus")
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    try:
        main()
    except Exception as exc:  # the test prints what went wrong
        print(json.dumps({"error": repr(exc)}))
        sys.exit(1)
