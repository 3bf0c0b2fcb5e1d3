//! The XFCC envelopes against the operation pages' shapes, answers read back (games, codes,
//! faults), and any input read without a panic.

use super::*;
use proptest::prelude::*;

const MY_GAMES: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<soap:Envelope xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">
  <soap:Body>
    <GetMyGamesResponse xmlns="http://www.bennedik.com/webservices/XfccBasic">
      <GetMyGamesResult>
        <XfccGame>
          <id>4711</id><white>Carol King</white><black>Anna Blind</black>
          <event>WS/M/1234 &amp; friends</event><site>ICCF</site>
          <myTurn>true</myTurn><hasWhite>false</hasWhite>
          <daysPlayer>23</daysPlayer><hoursPlayer>4</hoursPlayer><minutesPlayer>10</minutesPlayer>
          <daysOpponent>40</daysOpponent><hoursOpponent>0</hoursOpponent><minutesOpponent>0</minutesOpponent>
          <moves>1.e4 c5 2.Nf3</moves>
          <drawOffered>false</drawOffered><result>Ongoing</result>
          <message>Good luck &lt;3</message>
        </XfccGame>
        <XfccGame><id>12</id><moves>1. d4 d5 2. c4 1/2-1/2</moves><result>Draw</result><drawOffered>true</drawOffered></XfccGame>
        <XfccGame><id>not a number</id></XfccGame>
      </GetMyGamesResult>
    </GetMyGamesResponse>
  </soap:Body>
</soap:Envelope>"#;

#[test]
fn my_games_are_read_with_every_field() {
    let games = parse_my_games(MY_GAMES).unwrap();
    assert_eq!(games.len(), 2, "the game without a numeric id is left out");
    let g = &games[0];
    assert_eq!(g.id, 4711);
    assert_eq!(
        (g.white.as_str(), g.black.as_str()),
        ("Carol King", "Anna Blind")
    );
    assert_eq!(g.event, "WS/M/1234 & friends");
    assert!(g.my_turn && !g.has_white && !g.draw_offered);
    assert_eq!(
        g.player,
        TimeLeft {
            days: 23,
            hours: 4,
            minutes: 10
        }
    );
    assert_eq!(g.opponent.days, 40);
    assert_eq!(g.san(), ["e4", "c5", "Nf3"]);
    assert_eq!(g.result, Some(GameResult::Ongoing));
    assert_eq!(g.message, "Good luck <3");
    assert_eq!(games[1].san(), ["d4", "d5", "c4"]);
    assert_eq!(games[1].result, Some(GameResult::Draw));
    assert!(games[1].draw_offered);
    assert_eq!(games[1].result.as_ref().unwrap().winner(), Some(None));
}

#[test]
fn movetext_in_every_form_gives_the_same_moves() {
    for text in [
        "1.e4 e5 2.Nf3 Nc6 3.Bb5 a6 4.O-O",
        "1. e4 e5\n2. Nf3 Nc6\r\n3. Bb5 a6 4. 0-0 *",
        "e4 e5 Nf3 Nc6 Bb5 a6 O-O",
        "1.e4 {best by test} e5 2.Nf3 (2.f4 exf4) Nc6 $1 3.Bb5!? a6 4.O-O 1-0",
        "1.e4 1...e5 2.Nf3 2...Nc6 3.Bb5 3...a6 4.O-O",
    ] {
        assert_eq!(
            san_moves(text),
            ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "O-O"],
            "{text:?}"
        );
    }
    assert!(san_moves("").is_empty());
    assert!(san_moves("1-0").is_empty());
}

#[test]
fn movecount_is_the_full_move_number_of_the_move_sent() {
    assert_eq!(movecount(0), 1, "White's first move");
    assert_eq!(movecount(1), 1, "Black's first move");
    assert_eq!(movecount(2), 2);
    assert_eq!(movecount(3), 2, "Black's second move is 2");
}

#[test]
fn the_calls_are_soap_envelopes_in_the_service_namespace_with_escaped_text() {
    let call = MoveCall {
        game_id: 4711,
        movecount: 2,
        my_move: "Nc6".to_owned(),
        offer_draw: true,
        message: "a < b & \"c\"".to_owned(),
        ..MoveCall::default()
    };
    let xml = make_a_move("anna", "p<w>&d", &call);
    assert!(xml.contains(
        "<soap:Body><MakeAMove xmlns=\"http://www.bennedik.com/webservices/XfccBasic\">"
    ));
    assert!(xml.contains("<password>p&lt;w&gt;&amp;d</password>"));
    assert!(xml.contains("<gameId>4711</gameId><resign>false</resign><acceptDraw>false</acceptDraw><movecount>2</movecount><myMove>Nc6</myMove><offerDraw>true</offerDraw><claimDraw>false</claimDraw>"));
    // What a server reads back is what was meant.
    let (user, password, back) = parse_move_call(&xml).unwrap();
    assert_eq!((user.as_str(), password.as_str()), ("anna", "p<w>&d"));
    assert_eq!(back, call);
    let games = get_my_games("anna", "secret");
    let read = parse_call(&games).unwrap();
    assert_eq!(read.name, "GetMyGames");
    assert_eq!(read.child("password").unwrap().text, "secret");
    assert_eq!(
        Operation::MakeAMove.soap_action(),
        "\"http://www.bennedik.com/webservices/XfccBasic/MakeAMove\""
    );
}

fn move_answer(code: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?><soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body><MakeAMoveResponse xmlns=\"{NAMESPACE}\"><MakeAMoveResult>{code}</MakeAMoveResult></MakeAMoveResponse></soap:Body></soap:Envelope>"
    )
}

#[test]
fn every_result_code_is_read_and_an_unknown_one_kept() {
    for (text, code) in RESULT_CODES.iter() {
        assert_eq!(parse_make_a_move(&move_answer(text)).unwrap(), *code);
        assert_eq!(code.text(), *text);
        assert!(code.voice_key().starts_with("xfcc_result_"));
    }
    assert_eq!(
        parse_make_a_move(&move_answer("GameIsOnFire")).unwrap(),
        ResultCode::Unknown("GameIsOnFire".to_owned())
    );
}

#[test]
fn a_fault_is_an_error_naming_its_code_when_it_has_one() {
    let fault = "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body><soap:Fault><faultcode>soap:Server</faultcode><faultstring>Server was unable to process request. ---&gt; AuthenticationFailed</faultstring></soap:Fault></soap:Body></soap:Envelope>";
    match parse_make_a_move(fault) {
        Err(XfccError::Fault { text, code }) => {
            assert!(text.contains("---> AuthenticationFailed"));
            assert_eq!(code, Some(ResultCode::AuthenticationFailed));
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        parse_my_games(fault),
        Err(XfccError::Fault { .. })
    ));
    assert!(parse_my_games("<html>502 Bad Gateway").is_err());
    assert!(matches!(
        parse_my_games("<a><b></a>"),
        Err(XfccError::Xml(_))
    ));
    assert!(matches!(
        parse_make_a_move("<soap:Envelope xmlns:soap=\"x\"><soap:Body/></soap:Envelope>"),
        Err(XfccError::Missing(_))
    ));
}

#[test]
fn nesting_beyond_the_bound_is_refused_not_overflowed() {
    let deep = "<a>".repeat(100_000);
    assert!(parse_tree(&deep).is_err());
}

proptest! {
    /// No input panics the readers.
    #[test]
    fn any_text_is_read_without_a_panic(text in ".{0,400}") {
        let _ = parse_my_games(&text);
        let _ = parse_make_a_move(&text);
        let _ = parse_move_call(&text);
        let _ = san_moves(&text);
    }

    /// An answer cut or changed anywhere is read without a panic.
    #[test]
    fn a_mangled_answer_is_read_without_a_panic(cut in 0usize..2000, at in 0usize..2000, c in any::<char>()) {
        let mut text: String = MY_GAMES.chars().take(cut).collect();
        let at = text.char_indices().nth(at).map_or(text.len(), |(i, _)| i);
        text.insert(at, c);
        let _ = parse_my_games(&text);
    }

    /// Whatever the strings, the call reads back as written.
    #[test]
    fn a_call_reads_back(user in "\\PC{0,30}", password in "\\PC{0,30}", my_move in "\\PC{0,10}", message in "\\PC{0,80}", id in 0i64..1_000_000_000, n in 1u32..400) {
        let call = MoveCall { game_id: id, movecount: n, my_move: my_move.trim().to_owned(), message: message.clone(), resign: n % 2 == 0, ..MoveCall::default() };
        let xml = make_a_move(&user, &password, &call);
        let (u, p, back) = parse_move_call(&xml).unwrap();
        prop_assert_eq!(u, user);
        prop_assert_eq!(p, password);
        prop_assert_eq!(back, call);
    }
}
