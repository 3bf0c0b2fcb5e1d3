//! The board codecs from the outside: peg lines and DGT bytes to events, the chatter debouncer,
//! round trips through the encoders, and arbitrary input that must never panic or grow memory.

use annabella::boards::debounce::{self, Debouncer};
use annabella::boards::dgt::{self, DgtDecoder};
use annabella::boards::peg::{self, PegDecoder};
use annabella::boards::{
    BoardKey, Decoded, Decoder, Millis, Protocol, SensorEvent, Timed, decoder,
};
use proptest::prelude::*;
use shakmaty::{Bitboard, Board, Piece, Role, Square};

/// One decoded item as a line: `<at> <peg line>` for peg events, `<at> pieces <board FEN>` and
/// `<at> e4=P` / `<at> e4=-` for DGT events, the error text for errors.
fn render(decoded: &Decoded) -> String {
    match decoded {
        Err(e) => e.to_string(),
        Ok(Timed { at, event }) => match event {
            SensorEvent::Pieces(board) => format!("{at} pieces {board}"),
            SensorEvent::SquareChanged { square, piece } => {
                let piece = piece.map_or('-', |p| p.char());
                format!("{at} {square}={piece}")
            }
            SensorEvent::Identity(text) => format!("{at} V{text}"),
            SensorEvent::Key(BoardKey::Other(c)) => format!("{at} K{c}"),
            SensorEvent::Clock(c) => format!(
                "{at} clock left {} right {} {}{}",
                c.left_ms,
                c.right_ms,
                if c.running { "running" } else { "stopped" },
                if c.right_runs { " right" } else { " left" }
            ),
            other => format!("{at} {}", peg::encode(other).expect("peg events encode")),
        },
    }
}

fn run(decoder: &mut dyn Decoder, bytes: &[u8], now: Millis) -> Vec<String> {
    let mut out = Vec::new();
    decoder.feed(bytes, now, &mut out);
    decoder.finish(now, &mut out);
    out.iter().map(render).collect()
}

#[track_caller]
fn check_peg(input: &str, expected: &[&str]) {
    let got = run(&mut PegDecoder::new(), input.as_bytes(), 9);
    assert_eq!(got, expected, "input {input:?}");
}

#[track_caller]
fn check_dgt(input: &[u8], expected: &[&str]) {
    let got = run(&mut DgtDecoder::new(), input, 9);
    assert_eq!(got, expected, "input {input:02x?}");
}

#[test]
fn peg_lines() {
    let cases: &[(&str, &[&str])] = &[
        ("Le2\nPe4\n", &["9 Le2", "9 Pe4"]),
        ("Le2\r\nPe4\r\n", &["9 Le2", "9 Pe4"]),
        ("LE2\n", &["9 Le2"]),
        ("  Le2  \n\t\n", &["9 Le2"]),
        ("Le2 # the king's pawn\n", &["9 Le2"]),
        ("# a comment\n#\n\n", &[]),
        ("@1234 Le2\n@1250   Pe4\n", &["1234 Le2", "1250 Pe4"]),
        ("@0 Le2\nPe4\n", &["0 Le2", "9 Pe4"]),
        ("SFFFF00000000FFFF\n", &["9 SFFFF00000000FFFF"]),
        ("Sffff00000000ffff\n", &["9 SFFFF00000000FFFF"]),
        ("S0000000000000000\n", &["9 S0000000000000000"]),
        (
            "S\nS1\n",
            &[
                "line 1: \"S\": 0 hex digits; expected S followed by 16 hex digits, like \
             SFFFF00000000FFFF",
                "line 2: \"S1\": 1 hex digit; expected S followed by 16 hex digits, like \
             SFFFF00000000FFFF",
            ],
        ),
        (
            "KQ\nKR\nKB\nKN\nKA\nKT\n",
            &["9 KQ", "9 KR", "9 KB", "9 KN", "9 KA", "9 KT"],
        ),
        (
            "kq\n",
            &["line 1: \"kq\": unknown event \"k\"; expected L, P, S, K or V (or # for a comment)"],
        ),
        ("Kq\nKX\nK!\n", &["9 KQ", "9 KX", "9 K!"]),
        (
            "Vannabella-peg 1.0 # not a comment\n",
            &["9 Vannabella-peg 1.0 # not a comment"],
        ),
        ("\u{feff} Le2\n", &["9 Le2"]),
        (
            "Le2\n\u{feff}Le2\n",
            &[
                "9 Le2",
                "line 2: \"\\u{feff}Le2\": unknown event \"\\u{feff}\"; expected L, P, S, K or V (or # \
             for a comment)",
            ],
        ),
        // The last line of a recording may lack its LF.
        ("Le2\nPe4", &["9 Le2", "9 Pe4"]),
        (
            "Le2\nLz9\n",
            &[
                "9 Le2",
                "line 2: \"Lz9\": no such square \"z9\"; expected L followed by a square like e2",
            ],
        ),
        (
            "P\n",
            &["line 1: \"P\": no square; expected P followed by a square like e2"],
        ),
        (
            "L e2\n",
            &[
                "line 1: \"L e2\": a blank after \"L\"; write an event without blanks, like Le2, \
               SFFFF00000000FFFF or KQ",
            ],
        ),
        (
            "Pe44\n",
            &["line 1: \"Pe44\": no such square \"e44\"; expected P followed by a square like e2"],
        ),
        (
            "Le2 Pe4\n",
            &["line 1: \"Le2 Pe4\": unexpected \"Pe4\" after the event; a comment starts with #"],
        ),
        (
            "SFFFF\n",
            &[
                "line 1: \"SFFFF\": 4 hex digits; expected S followed by 16 hex digits, like \
             SFFFF00000000FFFF",
            ],
        ),
        (
            "SFFFF00000000FFFG\n",
            &[
                "line 1: \"SFFFF00000000FFFG\": \"G\" is not a hex digit; expected S followed by 16 \
             hex digits, like SFFFF00000000FFFF",
            ],
        ),
        (
            "SFFFF00000000FFFF0\n",
            &[
                "line 1: \"SFFFF00000000FFFF0\": 17 hex digits; expected S followed by 16 hex digits, \
             like SFFFF00000000FFFF",
            ],
        ),
        (
            "K\n",
            &[
                "line 1: \"K\": no key; expected K followed by one key: Q R B N (promotion piece), A \
             (again), T (time), O (own time), H (history), D (draw), C (claim), X (resign), S \
             (confirm sheet or send), Z (board set up), G (next game), L (list games), M \
             (message)",
            ],
        ),
        (
            "KQR\n",
            &[
                "line 1: \"KQR\": \"QR\" is more than one key; expected K followed by one key: Q R B \
             N (promotion piece), A (again), T (time), O (own time), H (history), D (draw), C \
             (claim), X (resign), S (confirm sheet or send), Z (board set up), G (next game), L \
             (list games), M (message)",
            ],
        ),
        (
            "V\n",
            &[
                "line 1: \"V\": no identification text; expected V followed by the board's name and \
             version, like Vannabella-peg 1.0",
            ],
        ),
        (
            "?\n",
            &["line 1: \"?\": unknown event \"?\"; expected L, P, S, K or V (or # for a comment)"],
        ),
        (
            "@12x Le2\n",
            &[
                "line 1: \"@12x Le2\": bad timestamp \"12x\"; expected @ followed by milliseconds, a \
             space and the event, like @1234 Le2",
            ],
        ),
        (
            "@abc Le2\n",
            &[
                "line 1: \"@abc Le2\": bad timestamp \"abc\"; expected @ followed by milliseconds, a \
             space and the event, like @1234 Le2",
            ],
        ),
        (
            "@ Le2\n",
            &[
                "line 1: \"@ Le2\": bad timestamp \"\"; expected @ followed by milliseconds, a space \
             and the event, like @1234 Le2",
            ],
        ),
        (
            "@99999999999999999999 Le2\n",
            &[
                "line 1: \"@99999999999999999999 Le2\": bad timestamp \"99999999999999999999\"; \
             expected @ followed by milliseconds, a space and the event, like @1234 Le2",
            ],
        ),
        (
            "@5\n@5 # nothing\n",
            &[
                "line 1: \"@5\": a timestamp without an event; expected @ followed by milliseconds, \
             a space and the event, like @1234 Le2",
                "line 2: \"@5 # nothing\": a timestamp without an event; expected @ followed by \
             milliseconds, a space and the event, like @1234 Le2",
            ],
        ),
        (
            "\u{e9}e2\n",
            &[
                "line 1: \"\u{e9}e2\": unknown event \"\u{e9}\"; expected L, P, S, K or V (or # for a \
             comment)",
            ],
        ),
    ];
    for (input, expected) in cases {
        check_peg(input, expected);
    }
}

#[test]
fn a_peg_error_names_its_line_among_many() {
    let input = "# recorded game\nSFFFF00000000FFFF\nLe2\nPe4\nLe7\nPe5\nLz9\nLg1\n";
    check_peg(
        input,
        &[
            "9 SFFFF00000000FFFF",
            "9 Le2",
            "9 Pe4",
            "9 Le7",
            "9 Pe5",
            "line 7: \"Lz9\": no such square \"z9\"; expected L followed by a square like e2",
            "9 Lg1",
        ],
    );
}

#[test]
fn peg_line_parser_for_the_replay_command() {
    assert_eq!(peg::parse_line(b"# x", 3, 0), None);
    assert_eq!(
        peg::parse_line(b"@17 Pa1\r", 3, 0),
        Some(Ok(Timed {
            at: 17,
            event: SensorEvent::Place(Square::A1)
        }))
    );
    let err = peg::parse_line(b"Pi9", 3, 0).unwrap().unwrap_err();
    assert_eq!(
        err.to_string(),
        "line 3: \"Pi9\": no such square \"i9\"; expected P followed by a square like e2"
    );
}

#[test]
fn peg_requests_and_greeting() {
    let d = decoder(Protocol::Peg);
    assert_eq!(d.greeting(), b"V\n?\n");
    assert_eq!(d.snapshot_request(), b"?\n");
}

fn start_dump() -> Vec<u8> {
    dgt::encode_board_dump(&Board::new())
}

#[test]
fn dgt_messages() {
    let white_pawn = Piece::from_char('P').unwrap();
    let mut many = start_dump();
    many.extend(dgt::encode_field_update(Square::E2, None));
    many.extend(dgt::encode_field_update(Square::E4, Some(white_pawn)));
    let start = "9 pieces rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
    let cases: &[(Vec<u8>, &[&str])] = &[
        (start_dump(), &[start]),
        (many, &[start, "9 e2=-", "9 e4=P"]),
        // Field update: e4 is field 36 in DGT's a8-first numbering.
        (vec![0x8e, 0, 5, 36, 1], &["9 e4=P"]),
        (vec![0x8e, 0, 5, 0, 12], &["9 a8=q"]),
        (vec![0x8e, 0, 5, 63, 5], &["9 h1=K"]),
        (vec![0x8e, 0, 5, 7, 11], &["9 h8=k"]),
        (vec![0x8e, 0, 5, 56, 2], &["9 a1=R"]),
        (dgt::encode_version(3, 1), &["9 VDGT board version 3.1"]),
        (
            dgt::encode_serial_number(b"23946"),
            &["9 VDGT board serial number 23946"],
        ),
        (
            vec![
                0xa2, 0, 13, b'1', b'2', b'3', b'4', b'5', b'6', b'7', b'8', b'9', b'0',
            ],
            &["9 VDGT board long serial number 1234567890"],
        ),
        (
            [&[0x92, 0, 14][..], b"DGT\r\nBoard\x01"].concat(),
            &["9 VDGT board trademark: DGT Board"],
        ),
        // Clock times: right 0:05:01, left 1:29:59, running, the left side's time running.
        (
            vec![0x8d, 0, 10, 0x00, 0x05, 0x01, 0x01, 0x29, 0x59, 0x01],
            &["9 clock left 5399000 right 301000 running left"],
        ),
        // A board without a clock says so in the status byte: no reading.
        (vec![0x8d, 0, 10, 0, 0, 0, 0, 0, 0, 0x20], &[]),
        // Bus address, battery status: framed, ignored.
        (vec![0x90, 0, 5, 1, 2], &[]),
        (vec![0xa0, 0, 12, 1, 2, 3, 4, 5, 6, 7, 8, 9], &[]),
        (vec![0xff, 0, 3], &[]),
        // Noise and broken frames.
        (
            vec![0x01, 0x7f],
            &[
                "byte offset 0: 2 bytes outside any message skipped; a message starts with a byte \
             of 0x80 or more",
            ],
        ),
        (
            vec![0x8e, 0, 5, 36, 0x93, 0, 5, 1, 7],
            &[
                "byte offset 0: message 0x8e (field update) cut short after 4 of its 5 bytes by \
             byte 0x93 at offset 4, which starts a new message",
                "9 VDGT board version 1.7",
            ],
        ),
        (
            vec![0x8e, 0x86, 0, 67],
            &[
                "byte offset 0: message 0x8e (field update) cut short after 1 of its 3 header bytes \
             by byte 0x86 at offset 1, which starts a new message",
                "byte offset 1: message 0x86 (board dump) cut short after 3 of its 67 bytes by the \
             end of the stream",
            ],
        ),
        (
            vec![0x8e, 0, 0],
            &[
                "byte offset 0: message 0x8e (field update) declares 0 bytes; the length counts the \
             3 header bytes, so it is at least 3",
            ],
        ),
        (
            vec![0x86, 0, 64],
            &["byte offset 0: message 0x86 (board dump) declares 64 bytes; it has 67"],
        ),
        (
            vec![0x99, 0x7f, 0x7f, 1, 2, 3],
            &[
                "byte offset 0: message 0x99 (unknown message) declares 16383 bytes; at most 67 \
             expected",
            ],
        ),
        (
            vec![0x8f, 0x7f, 0x7f],
            &[
                "byte offset 0: message 0x8f (EEPROM moves) declares 16383 bytes; at most 8195 \
             expected",
            ],
        ),
        (
            vec![0x8e, 0, 5, 36, 16],
            &["byte offset 4: field update on e4: piece code 16; DGT piece codes are 0 to 15"],
        ),
    ];
    for (input, expected) in cases {
        check_dgt(input, expected);
    }
}

#[test]
fn dgt_requests_and_greeting() {
    let d = decoder(Protocol::Dgt);
    assert_eq!(d.greeting(), [0x40, 0x4d, 0x45, 0x4b, 0x42]);
    assert_eq!(d.snapshot_request(), [0x42]);
    assert!(!d.greeting().contains(&0x4e), "never the bootloader");
}

#[test]
fn dgt_board_dump_split_over_many_reads() {
    let mut bytes = vec![0x00, 0x11, 0x22];
    bytes.extend(start_dump());
    for size in 1..=bytes.len() {
        let mut d = DgtDecoder::new();
        let mut out = Vec::new();
        for (i, chunk) in bytes.chunks(size).enumerate() {
            d.feed(chunk, i as Millis, &mut out);
        }
        let events: Vec<_> = out.iter().filter_map(|d| d.as_ref().ok()).collect();
        assert_eq!(events.len(), 1, "chunks of {size}");
        assert_eq!(events[0].event, SensorEvent::Pieces(Board::new()));
        // Stamped when its last byte arrived.
        assert_eq!(events[0].at, ((bytes.len() - 1) / size) as Millis);
    }
}

// --- generators ---

fn square() -> impl Strategy<Value = Square> {
    (0u32..64).prop_map(Square::new)
}

fn piece() -> impl Strategy<Value = Option<Piece>> {
    (0u8..=12).prop_map(|code| dgt::piece_from_code(code).unwrap())
}

fn board() -> impl Strategy<Value = Board> {
    prop::collection::vec(piece(), 64).prop_map(|pieces| {
        let mut board = Board::empty();
        for (square, piece) in Square::ALL.into_iter().zip(pieces) {
            if let Some(piece) = piece {
                board.set_piece_at(square, piece);
            }
        }
        board
    })
}

fn peg_event() -> impl Strategy<Value = SensorEvent> {
    prop_oneof![
        square().prop_map(SensorEvent::Lift),
        square().prop_map(SensorEvent::Place),
        any::<u64>().prop_map(|bits| SensorEvent::Occupancy(Bitboard(bits))),
        prop_oneof![
            Just(BoardKey::Promote(Role::Queen)),
            Just(BoardKey::Promote(Role::Rook)),
            Just(BoardKey::Promote(Role::Bishop)),
            Just(BoardKey::Promote(Role::Knight)),
            Just(BoardKey::Repeat),
            Just(BoardKey::Time),
            Just(BoardKey::OwnTime),
            Just(BoardKey::History),
            Just(BoardKey::Draw),
            Just(BoardKey::Claim),
            Just(BoardKey::Resign),
            Just(BoardKey::ConfirmSheet),
            Just(BoardKey::SetUp),
            prop::sample::select(vec!['Y', '1', '!', 'w', '\u{e9}']).prop_map(BoardKey::Other),
        ]
        .prop_map(SensorEvent::Key),
        "[A-Za-z0-9][ -~]{0,60}[A-Za-z0-9.]".prop_map(SensorEvent::Identity),
    ]
}

/// Bytes that look like peg lines often enough to reach every branch.
fn peggy_bytes() -> impl Strategy<Value = Vec<u8>> {
    let token = prop_oneof![
        Just(b"L".to_vec()),
        Just(b"P".to_vec()),
        Just(b"S".to_vec()),
        Just(b"K".to_vec()),
        Just(b"V".to_vec()),
        Just(b"@".to_vec()),
        Just(b"#".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\r".to_vec()),
        Just(b" ".to_vec()),
        Just(b"e2".to_vec()),
        Just(b"FFFF00000000FFFF".to_vec()),
        "[0-9]{1,25}".prop_map(String::into_bytes),
        prop::collection::vec(any::<u8>(), 1..4),
        (250usize..300).prop_map(|n| vec![b'L'; n]),
    ];
    prop::collection::vec(token, 0..60).prop_map(|t| t.concat())
}

/// Bytes that look like DGT messages often enough to reach every branch.
fn dgtish_bytes() -> impl Strategy<Value = Vec<u8>> {
    let token = prop_oneof![
        board().prop_map(|b| dgt::encode_board_dump(&b)),
        (square(), piece()).prop_map(|(s, p)| dgt::encode_field_update(s, p)),
        (any::<u8>(), any::<u8>()).prop_map(|(a, b)| dgt::encode_version(a, b)),
        prop::sample::select(vec![0x86u8, 0x8d, 0x8e, 0x8f, 0x91, 0x92, 0x93, 0xa2])
            .prop_map(|id| vec![id]),
        Just(vec![0x8f, 0x3e, 0x03]),
        prop::collection::vec(0u8..0x80, 1..8),
        prop::collection::vec(any::<u8>(), 1..8),
    ];
    prop::collection::vec(token, 0..20).prop_map(|t| t.concat())
}

/// Feeds `bytes` in chunks whose sizes come from `cuts`, in turn.
fn feed_in_chunks(decoder: &mut dyn Decoder, bytes: &[u8], cuts: &[usize]) -> Vec<Decoded> {
    let mut out = Vec::new();
    let mut rest = bytes;
    let mut sizes = cuts.iter().cycle();
    while !rest.is_empty() {
        let size = sizes
            .next()
            .copied()
            .unwrap_or(rest.len())
            .clamp(1, rest.len());
        let (chunk, tail) = rest.split_at(size);
        decoder.feed(chunk, 0, &mut out);
        rest = tail;
    }
    decoder.finish(0, &mut out);
    out
}

fn one_shot(decoder: &mut dyn Decoder, bytes: &[u8]) -> Vec<Decoded> {
    let mut out = Vec::new();
    decoder.feed(bytes, 0, &mut out);
    decoder.finish(0, &mut out);
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn peg_any_bytes_any_chunks(
        bytes in prop_oneof![prop::collection::vec(any::<u8>(), 0..2000), peggy_bytes()],
        cuts in prop::collection::vec(1usize..40, 1..8),
    ) {
        let whole = one_shot(&mut PegDecoder::new(), &bytes);
        let mut d = PegDecoder::new();
        let mut out = Vec::new();
        let mut rest = &bytes[..];
        let mut sizes = cuts.iter().cycle();
        while !rest.is_empty() {
            let size = (*sizes.next().unwrap()).min(rest.len());
            let (chunk, tail) = rest.split_at(size);
            d.feed(chunk, 0, &mut out);
            prop_assert!(d.buffered() <= peg::MAX_LINE_BYTES);
            rest = tail;
        }
        d.finish(0, &mut out);
        prop_assert_eq!(&out, &whole);
        // At most one result per line.
        let lines = bytes.iter().filter(|&&b| b == b'\n').count() + 1;
        prop_assert!(out.len() <= lines);
    }

    #[test]
    fn dgt_any_bytes_any_chunks(
        bytes in prop_oneof![prop::collection::vec(any::<u8>(), 0..2000), dgtish_bytes()],
        cuts in prop::collection::vec(1usize..80, 1..8),
    ) {
        let whole = one_shot(&mut DgtDecoder::new(), &bytes);
        let chunked = feed_in_chunks(&mut DgtDecoder::new(), &bytes, &cuts);
        prop_assert_eq!(&chunked, &whole);
        // Every result is owed to at least one byte of its own, plus one for the end.
        prop_assert!(whole.len() <= bytes.len() + 1);
    }

    #[test]
    fn dgt_messages_survive_noise_between_them(
        messages in prop::collection::vec(
            prop_oneof![
                board().prop_map(|b| (dgt::encode_board_dump(&b), SensorEvent::Pieces(b))),
                (square(), piece()).prop_map(|(square, piece)| (
                    dgt::encode_field_update(square, piece),
                    SensorEvent::SquareChanged { square, piece },
                )),
            ],
            1..8,
        ),
        noise in prop::collection::vec(prop::collection::vec(0u8..0x80, 0..10), 8),
        cuts in prop::collection::vec(1usize..80, 1..8),
    ) {
        let mut bytes = Vec::new();
        for ((message, _), noise) in messages.iter().zip(&noise) {
            bytes.extend(noise);
            bytes.extend(message);
        }
        let out = feed_in_chunks(&mut DgtDecoder::new(), &bytes, &cuts);
        let events: Vec<_> = out.iter().filter_map(|d| d.as_ref().ok()).map(|t| &t.event).collect();
        let expected: Vec<_> = messages.iter().map(|(_, e)| e).collect();
        prop_assert_eq!(events, expected);
        let errors = out.iter().filter(|d| d.is_err()).count();
        let noisy = noise.iter().take(messages.len()).filter(|n| !n.is_empty()).count();
        prop_assert_eq!(errors, noisy);
    }

    #[test]
    fn dgt_round_trips(board in board(), square in square(), piece in piece()) {
        let mut bytes = dgt::encode_board_dump(&board);
        bytes.extend(dgt::encode_field_update(square, piece));
        let got = one_shot(&mut DgtDecoder::new(), &bytes);
        prop_assert_eq!(got, vec![
            Ok(Timed { at: 0, event: SensorEvent::Pieces(board) }),
            Ok(Timed { at: 0, event: SensorEvent::SquareChanged { square, piece } }),
        ]);
    }

    #[test]
    fn rotate_twice_is_the_same_board(board in board()) {
        prop_assert_eq!(dgt::rotate(&dgt::rotate(&board)), board.clone());
        let turned = dgt::rotate(&board);
        for square in Square::ALL {
            prop_assert_eq!(turned.piece_at(square.rotate_180()), board.piece_at(square));
        }
    }

    #[test]
    fn peg_round_trips(events in prop::collection::vec((any::<u32>(), peg_event()), 0..40)) {
        let mut text = String::new();
        let mut expected = Vec::new();
        for (at, event) in events {
            let timed = Timed { at: Millis::from(at), event };
            text.push_str(&peg::encode_timed(&timed).expect("encodable"));
            text.push('\n');
            expected.push(Ok(timed));
        }
        prop_assert_eq!(one_shot(&mut PegDecoder::new(), text.as_bytes()), expected);
    }

    #[test]
    fn debouncer_removes_inserted_chatter(
        window in 1u64..60,
        truth in prop::collection::vec(
            (0u32..8, any::<bool>(), 0u64..100, prop::collection::vec(1u64..1000, 0..6)),
            0..40,
        ),
    ) {
        // Build a true sequence, then add chatter after each event: bounces that follow one
        // another within the window and end where the true event left the square.
        let mut raw: Vec<(Millis, usize, Timed<SensorEvent>)> = Vec::new();
        let mut expected = Vec::new();
        let mut clock: Millis = 1000;
        let mut last_on_square = [None::<Millis>; 64];
        for (i, (square, lift, gap, bounces)) in truth.into_iter().enumerate() {
            clock += gap;
            let square = Square::new(square * 9 % 64);
            let mut at = clock;
            if let Some(last) = last_on_square[square.to_usize()] {
                at = at.max(last + window);
            }
            let event = |lift: bool, at| Timed {
                at,
                event: if lift { SensorEvent::Lift(square) } else { SensorEvent::Place(square) },
            };
            expected.push((at, i, event(lift, at)));
            raw.push((at, i, event(lift, at)));
            let mut t = at;
            let pairs = bounces.len() / 2 * 2;
            for (k, bounce) in bounces.iter().take(pairs).enumerate() {
                t += bounce % window;
                let bounce_lift = if k % 2 == 0 { !lift } else { lift };
                raw.push((t, i, event(bounce_lift, t)));
            }
            last_on_square[square.to_usize()] = Some(t);
        }
        raw.sort_by_key(|(at, i, _)| (*at, *i));
        expected.sort_by_key(|(at, i, _)| (*at, *i));
        let expected: Vec<_> = expected.into_iter().map(|(_, _, e)| e).collect();

        let mut d = Debouncer::new(window);
        let mut out = Vec::new();
        for (_, _, event) in raw.clone() {
            d.push(event, &mut out);
            prop_assert!(d.pending() <= debounce::MAX_PENDING);
        }
        d.flush(&mut out);
        prop_assert_eq!(&out, &expected);

        // Polling at every deadline on the way changes nothing but when events come out.
        let mut d = Debouncer::new(window);
        let mut polled = Vec::new();
        for (at, _, event) in raw {
            while let Some(deadline) = d.next_deadline().filter(|&t| t < at) {
                d.poll(deadline, &mut polled);
            }
            d.push(event, &mut polled);
        }
        d.flush(&mut polled);
        prop_assert_eq!(polled, expected);
    }

    #[test]
    fn debouncer_never_panics_or_hoards(
        window in 0u64..100,
        events in prop::collection::vec(
            (any::<u64>(), 0u32..64, 0u8..4),
            0..400,
        ),
    ) {
        let mut d = Debouncer::new(window);
        let mut out = Vec::new();
        let mut squares_in = 0;
        for (at, square, kind) in events {
            let square = Square::new(square);
            let event = match kind {
                0 => SensorEvent::Lift(square),
                1 => SensorEvent::Place(square),
                2 => SensorEvent::Occupancy(Bitboard::EMPTY),
                _ => SensorEvent::Key(BoardKey::Time),
            };
            squares_in += usize::from(kind < 2);
            d.push(Timed { at: at % 10_000, event }, &mut out);
            prop_assert!(d.pending() <= debounce::MAX_PENDING);
            if let Some(deadline) = d.next_deadline() {
                d.poll(deadline, &mut out);
            }
        }
        d.flush(&mut out);
        prop_assert_eq!(d.pending(), 0);
        let squares_out = out
            .iter()
            .filter(|e| matches!(e.event, SensorEvent::Lift(_) | SensorEvent::Place(_)))
            .count();
        prop_assert!(squares_out <= squares_in);
    }

    #[test]
    fn debouncer_with_window_zero_passes_everything(
        events in prop::collection::vec((any::<u64>(), square(), any::<bool>()), 0..50),
    ) {
        let events: Vec<_> = events
            .into_iter()
            .map(|(at, s, lift)| Timed {
                at,
                event: if lift { SensorEvent::Lift(s) } else { SensorEvent::Place(s) },
            })
            .collect();
        let mut d = Debouncer::new(0);
        let mut out = Vec::new();
        for e in events.clone() {
            d.push(e, &mut out);
        }
        prop_assert_eq!(out, events);
    }
}

/// The recorded 1.e4 of docs/peg-protocol.md §8, chatter and all, is one lift and one placement.
#[test]
fn the_worked_example_of_the_protocol_document() {
    let recording = "@10000 Le2\n@10004 Pe2\n@10006 Le2\n@10900 Pe4\n@10903 Le4\n@10905 Pe4\n";
    let mut out = Vec::new();
    let mut decoder = PegDecoder::new();
    decoder.feed(recording.as_bytes(), 0, &mut out);
    let mut debouncer = Debouncer::default();
    let mut events = Vec::new();
    let mut decoded = out.into_iter().map(Result::unwrap);
    for event in decoded.by_ref().take(3) {
        debouncer.push(event, &mut events);
    }
    debouncer.poll(10035, &mut events);
    assert!(events.is_empty(), "e2 is still settling");
    debouncer.poll(10036, &mut events);
    assert_eq!(
        events,
        [Timed {
            at: 10000,
            event: SensorEvent::Lift(Square::E2)
        }]
    );
    for event in decoded {
        debouncer.push(event, &mut events);
    }
    debouncer.flush(&mut events);
    assert_eq!(
        events[1],
        Timed {
            at: 10900,
            event: SensorEvent::Place(Square::E4)
        }
    );
    assert_eq!(events.len(), 2);

    let reconnect = peg::parse_line(b"SFFF700080000EFFF", 1, 0)
        .unwrap()
        .unwrap();
    let mut after_exd5 = Board::new().occupied();
    after_exd5.discard(Square::E2);
    after_exd5.discard(Square::D7);
    after_exd5.add(Square::D5);
    assert_eq!(reconnect.event, SensorEvent::Occupancy(after_exd5));
    assert_eq!(
        peg::parse_line(b"SFFFF00001000EFFF", 1, 0)
            .unwrap()
            .unwrap()
            .event,
        SensorEvent::Occupancy(Board::new().occupied() ^ Bitboard(1 << 12 | 1 << 28))
    );
}
