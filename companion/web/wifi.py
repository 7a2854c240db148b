"""The phone page's Wi-Fi page: a network for the box to join, named on a phone that joined
the box's own access point (``companion.appliance.hotspot``).

The page cannot change the box's network itself (its unit may not write /etc): it hands the
request over in ``handed/wifi-request.json``, which companion-hotspot.service (root) checks
again and applies. While the access point is open, a phone on it may use this page without
pairing: it read the passphrase on the box's screen, as pairing would have it read a PIN.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from companion.appliance import hotspot
from companion.appliance.hotspot import WifiRequest
from companion.appliance.hotspot_state import REQUEST_NAME, Mode, read_state
from companion.records.settings import HANDED

from .auth import COOKIE
from .forms import FormRefused, small_form
from .site import Endpoint, Site, refused


def hand_over(state_dir: Path, request: WifiRequest) -> None:
    """The request written whole into ``handed/`` (renamed in once written)."""
    directory = state_dir / HANDED
    partial = directory / (REQUEST_NAME + ".partial")
    partial.write_text(json.dumps({"ssid": request.ssid, "passphrase": request.passphrase}))
    # The hotspot service reads it through the companion group (it has no right to bypass
    # file permissions): the page's unit makes files for its user only.
    partial.chmod(0o640)
    os.replace(partial, directory / REQUEST_NAME)


def endpoint(site: Site) -> Endpoint:
    async def wifi_page(request: Request) -> Response:
        state = read_state(site.state_dir)
        sid = site.pairing.session_id(request.cookies.get(COOKIE))
        is_open = state is not None and state.mode is Mode.OPEN
        client = request.client.host if request.client else ""
        if sid is None and not (is_open and hotspot.on_hotspot(client)):
            return site.unpaired(request)
        message, error = request.query_params.get("done", ""), ""
        if request.method == "POST":
            try:
                form = await small_form(request, strict=True)
            except FormRefused as exc:
                return refused(exc.message, exc.status)
            if sid is not None and not site.pairing.csrf_ok(sid, form.get("csrf")):
                return refused("the form expired: reload the page", 403)
            try:
                if not is_open:
                    raise ValueError("the box's own network is not open: it is on its network "
                                     "already, or set wifi_ssid in companion.txt")
                wanted = hotspot.checked(form.get("ssid", ""), form.get("passphrase", ""))
                hand_over(site.state_dir, wanted)
            except (ValueError, OSError) as exc:
                error = str(exc)
            else:
                done = (f"The box is joining {wanted.ssid}: its own network closes now. Join "
                        f"{wanted.ssid} with this phone and open http://companion.local/")
                return RedirectResponse(f"/wifi?done={quote(done)}", status_code=303)
        return site.page("wifi.html", 400 if error else 200, tab="wifi" if sid else "",
                         state=state, message=message, error=error,
                         csrf=site.pairing.csrf(sid) if sid else "")
    return wifi_page
