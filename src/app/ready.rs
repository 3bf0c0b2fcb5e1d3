//! The start announcement of an appliance without a screen: once everything listens, each
//! voiced output says whom it is for and, when the page is served, the page's address in words
//! (the words are `chess::ready`'s; docs/appliance.md).

use std::net::{IpAddr, Ipv4Addr, SocketAddr, UdpSocket};

use crate::chess::language::Language;
use crate::chess::ready::{ReadyListeners, page_phrase, ready_phrase};
use crate::io::speech::{Listener, Speaker, Utterance};

/// Says the ready phrase on every voiced output, then the page's address when the page is on
/// and the address is one a listener can type.
pub fn announce(speaker: &Speaker, lang: &Language, web: Option<SocketAddr>, now_ms: u64) {
    let v = lang.vocabulary();
    let page =
        web.and_then(|w| reachable_v4(w.ip()).map(|ip| page_phrase(ip.octets(), w.port(), v)));
    speaker.say_on_each_voiced(|l| {
        let who = ReadyListeners {
            blind: l.blind,
            opponent: l.opponent,
            arbiter: l.arbiter,
        };
        let say = |text: String| Utterance::new(Listener::Everyone, text, lang.code(), "", now_ms);
        let mut words = vec![say(ready_phrase(who, v))];
        words.extend(page.clone().map(say));
        words
    });
}

/// The IPv4 address another machine reaches the page at: the bound one, or for a page bound
/// to every interface (0.0.0.0) the address of the interface with the default route. None
/// for IPv6 (too long to say usefully) or when there is no route.
fn reachable_v4(bound: IpAddr) -> Option<Ipv4Addr> {
    match bound {
        IpAddr::V4(ip) if !ip.is_unspecified() => Some(ip),
        IpAddr::V4(_) => routed_v4(),
        IpAddr::V6(ip) => ip.to_ipv4_mapped().filter(|ip| !ip.is_unspecified()),
    }
}

/// The local address the kernel would send from to a documentation address (192.0.2.1,
/// RFC 5737): a UDP "connect" only picks the route, no packet leaves the machine.
fn routed_v4() -> Option<Ipv4Addr> {
    let socket = UdpSocket::bind((Ipv4Addr::UNSPECIFIED, 0)).ok()?;
    socket.connect((Ipv4Addr::new(192, 0, 2, 1), 9)).ok()?;
    match socket.local_addr().ok()?.ip() {
        IpAddr::V4(ip) if !ip.is_unspecified() => Some(ip),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bound_address_is_said_as_it_is_and_any_address_as_the_routed_one() {
        let ip = Ipv4Addr::new(192, 168, 1, 20);
        assert_eq!(reachable_v4(IpAddr::V4(ip)), Some(ip));
        // Without a default route (a sandbox) there is none to say, never 0.0.0.0.
        let any = reachable_v4(IpAddr::V4(Ipv4Addr::UNSPECIFIED));
        assert_ne!(any, Some(Ipv4Addr::UNSPECIFIED));
        assert_eq!(reachable_v4("::".parse().unwrap()), None);
    }
}
