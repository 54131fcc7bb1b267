"""Sample internal documents: how-to guides, memos, a policy and a postmortem, several paragraphs each.

They give the long-text route prose to answer from, and they mention the other buckets' subjects in other
words (the retention policy says how long contracts and invoices are kept), which tests that search does not
confuse a document about invoices with an invoice.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

from core.models import Document, FieldSpec, SourceDocument
from retrievers.loaders.common import RowBuilder, source_document

BUCKET = "generic"
FIELDS = [
    FieldSpec(
        name="doc_type",
        type="string",
        description="Kind of document: 'how-to', 'memo', 'policy' or 'postmortem'",
        aliases=["type", "kind", "document type", "kind of document"],
    ),
    FieldSpec(
        name="department",
        type="string",
        description="Department that owns the document, e.g. 'Finance'",
        aliases=["department", "team", "owned by", "owner"],
    ),
    FieldSpec(
        name="audience",
        type="string",
        description="Who the document is written for, e.g. 'all staff'",
        aliases=["audience", "written for", "intended for", "readers"],
    ),
]

# (title, doc_type, department, audience, author, written on, tags, paragraphs)
_DOCUMENTS = [
    (
        "How to submit an expense report",
        "how-to",
        "Finance",
        "all staff",
        "Tom Okafor",
        date(2023, 1, 9),
        ("expenses",),
        (
            "Expense reports are submitted in the Expenses portal, which you reach from the Finance page of the "
            "intranet. Create one report per trip or per month, whichever is shorter, and give it a name that says "
            "what it covers, for example 'Chicago customer visit, September 2021'.",
            "Attach a photo or scan of every receipt. Receipts must be itemised for any amount over USD 75; a card "
            "slip that shows only the total is not enough. If you lost a receipt, fill in the missing-receipt "
            "declaration in the portal and ask your manager to countersign it.",
            "Submit reports within thirty days of the expense. Reports older than ninety days are only paid with the "
            "approval of the finance director. Meals with customers need the names of the guests and the business "
            "purpose in the comment field.",
            "Your manager approves the report first, then Finance checks it against the travel policy. Approved "
            "expenses are paid with the next payroll run. Mileage is paid at the rate published each January on the "
            "Finance page.",
        ),
    ),
    (
        "VPN setup guide for remote staff",
        "how-to",
        "IT",
        "all staff",
        "Priya Natarajan",
        date(2022, 4, 4),
        ("it", "remote work"),
        (
            "Everyone who works away from the office connects to internal systems through the company VPN. Install the "
            "VPN client from the Software Center on a company laptop; personal devices are not allowed on the VPN.",
            "Open the client, enter vpn.example-corp.internal as the server and sign in with your usual account. The "
            "first time, you will be asked to approve a push notification in the authenticator app on your phone. If "
            "you have not enrolled the app yet, do that first by following the multi-factor authentication guide.",
            "If the connection drops every few minutes, switch the client from UDP to TCP in its settings. Hotel and "
            "airport networks often block UDP. If you see the error 'certificate not trusted', your laptop has missed "
            "an update: connect it to the office network or run Windows Update, then try again.",
            "Disconnect from the VPN when you stream video or join large public webinars: that traffic does not need "
            "to pass through the office and slows the connection for everyone else. Report outages to the IT service "
            "desk with the time, your location and a screenshot of the error.",
        ),
    ),
    (
        "Memo: office closure over the holidays",
        "memo",
        "Operations",
        "all staff",
        "Gregory Hale",
        date(2023, 12, 1),
        ("facilities",),
        (
            "The Newark office and warehouse will close from 23 December 2023 and reopen on 2 January 2024. The "
            "refrigerated warehouse remains staffed by the on-call team, and deliveries already booked for 27 and 28 "
            "December will be received as planned.",
            "Please take home anything you need over the break: the building will be locked and the heating turned "
            "down. Empty the kitchen fridges by Friday 22 December; whatever is left will be thrown away.",
            "Customer orders placed after 20 December will ship on 3 January. The sales team will tell customers about "
            "the change this week, and the website banner goes live on Monday.",
            "If something urgent happens while the office is closed, call the facilities on-call number printed on the "
            "notice by the main entrance. Orion Facility Services will attend refrigeration alarms within four hours, "
            "as in the rest of the year.",
        ),
    ),
    (
        "Records retention policy",
        "policy",
        "Legal",
        "all staff",
        "Dana Whitfield",
        date(2022, 2, 14),
        ("policy", "records"),
        (
            "This policy says how long the company keeps business records and how they are destroyed at the end of "
            "that time. It applies to paper and electronic records in every department and office.",
            "Signed agreements with customers, suppliers and partners are kept for seven years after the agreement "
            "expires or is terminated, together with their amendments and any notices of termination or non-renewal. "
            "Bills from suppliers and the bills we send to customers are kept for ten years from the end of the "
            "financial year they belong to, because tax authorities may audit them that far back.",
            "Till slips and card receipts that support staff expense claims are kept for six years. Quality records, "
            "such as certificates from certification bodies and declarations of conformity, are kept for as long as "
            "the product they relate to is sold, plus ten years.",
            "At the end of the retention period, records are destroyed securely: paper is shredded by the approved "
            "contractor, and electronic records are deleted from every system, including backups when they rotate. "
            "Records subject to a legal hold are never destroyed until Legal lifts the hold.",
        ),
    ),
    (
        "Postmortem: invoice export outage on 14 March 2024",
        "postmortem",
        "Engineering",
        "engineering and finance",
        "Priya Natarajan",
        date(2024, 3, 18),
        ("incident", "finance systems"),
        (
            "Summary: between 09:10 and 13:45 UTC on 14 March 2024 the nightly export of approved supplier invoices to "
            "the accounting system failed, and 212 invoices were not posted. No payment was made twice and no data was "
            "lost; all invoices were posted by 15:30 the same day.",
            "Cause: a schema change in the accounting system's API renamed the field that carries the invoice "
            "currency. Our export job treated the missing field as an error and stopped at the first invoice instead "
            "of reporting it and moving on. The change had been announced in the vendor's release notes, which nobody "
            "on the team was subscribed to.",
            "Detection: Finance noticed that the morning payment run was empty and opened a ticket at 10:02. The "
            "export job had no alert on failure, so engineering learned about the problem from that ticket.",
            "Actions: alert on any export failure (done); make the job skip and report invalid invoices rather than "
            "stop (done); subscribe the team to the vendor's release notes (done); add a contract test against the "
            "vendor's sandbox API that runs every night (due end of April).",
        ),
    ),
    (
        "Supplier onboarding checklist",
        "how-to",
        "Procurement",
        "buyers",
        "Marco Reyes",
        date(2023, 6, 5),
        ("suppliers", "procurement"),
        (
            "Before a new supplier receives its first purchase order, the buyer completes this checklist in the "
            "supplier portal. Orders to suppliers that are not fully onboarded are blocked by the purchasing system.",
            "Collect the supplier's legal name, registered address, tax or VAT registration number and bank details on "
            "company letterhead. Finance verifies the bank details by calling the supplier on a number taken from its "
            "website, never from the email that sent the details.",
            "Ask for a valid ISO 9001 certificate for suppliers of production parts, and ISO 13485 for anything that "
            "goes into a medical product. Record the certificate number and expiry date; the portal reminds the buyer "
            "sixty days before a certificate expires. Suppliers of electronic components must also provide RoHS "
            "declarations for each part number we buy.",
            "Sign a mutual non-disclosure agreement before sharing drawings or forecasts, and a supply agreement "
            "before ordering more than USD 50,000 a year. Legal's templates are on the Procurement page; any change to "
            "the liability cap or the governing law needs Legal's approval.",
        ),
    ),
]


def documents() -> Iterator[SourceDocument]:
    for number, (title, doc_type, department, audience, author, written, tags, paragraphs) in enumerate(
        _DOCUMENTS, start=1
    ):
        document = Document(
            doc_id=f"sample-generic-{number:03d}",
            bucket=BUCKET,
            title=title,
            author=author,
            tags=["sample", *tags],
            created_at=written,
            source="sample://generic",
            body="\n\n".join([title, *paragraphs]),
        )
        row = RowBuilder()
        for name, value in (("doc_type", doc_type), ("department", department), ("audience", audience)):
            row.add(name, value)
        yield source_document(document, [row.build()])
