"""An aiosmtpd handler for the mail tests: delivers into a Maildir like aiosmtpd's Mailbox,
but refuses for good (550) every recipient whose address begins with "refused", as a real
server refuses an unknown user at RCPT TO.

Run: PYTHONPATH=tests/data/mail python3 -m aiosmtpd -n -l 127.0.0.1:PORT \
         -c refusing_smtpd.RefusingMailbox MAILDIR
"""

from aiosmtpd.handlers import Mailbox


class RefusingMailbox(Mailbox):
    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.lower().startswith("refused"):
            return "550 5.1.1 <%s>: Recipient address rejected: User unknown" % address
        envelope.rcpt_tos.append(address)
        return "250 OK"
