//! The Millennium ChessLink and Certabo codecs as properties over arbitrary input: no panic,
//! chunking that changes nothing, output bounded by the input, and boards that survive the trip
//! through their messages with noise around them (the fuzz targets' properties, in the suite).

use annabella::boards::certabo::{self, Calibration, CertaboDecoder, ChipBoard};
use annabella::boards::millennium::{self, MillenniumDecoder};
use annabella::boards::{Decoded, Decoder, SensorEvent};
use proptest::prelude::*;
use shakmaty::{Board, Piece, Square};

fn board() -> impl Strategy<Value = Board> {
    prop::collection::vec(
        prop::option::of(prop::sample::select(
            "KQRBNPkqrbnp".chars().collect::<Vec<_>>(),
        )),
        64,
    )
    .prop_map(|squares| {
        let mut board = Board::empty();
        for (sq, piece) in Square::ALL.into_iter().zip(squares) {
            if let Some(c) = piece {
                board.set_piece_at(sq, Piece::from_char(c).unwrap());
            }
        }
        board
    })
}

/// Bytes that look like Millennium messages often enough to reach every branch.
fn millennium_bytes() -> impl Strategy<Value = Vec<u8>> {
    let token = prop_oneof![
        board().prop_map(|b| millennium::encode_status(&b)),
        (any::<u8>(), any::<u8>()).prop_map(|(a, b)| millennium::encode_version(a, b)),
        prop::sample::select(b"svwrlx".to_vec()).prop_map(|c| vec![c]),
        prop::collection::vec(0u8..0x80, 1..8),
        prop::collection::vec(any::<u8>(), 1..8),
    ];
    prop::collection::vec(token, 0..12).prop_map(|t| t.concat())
}

/// Lines that look like a Certabo board's often enough to reach every branch.
fn certabo_bytes() -> impl Strategy<Value = Vec<u8>> {
    let token = prop_oneof![
        Just(certabo::encode_line(&ChipBoard::new(&Board::new()).codes())),
        board().prop_map(|b| certabo::encode_line(&ChipBoard::new(&b).codes())),
        prop::collection::vec(0u16..300, 0..330).prop_map(|n| {
            let text: Vec<String> = n.iter().map(u16::to_string).collect();
            format!(":{} \r\n", text.join(" ")).into_bytes()
        }),
        prop::collection::vec(any::<u8>(), 1..40),
    ];
    prop::collection::vec(token, 0..8).prop_map(|t| t.concat())
}

fn one_shot(decoder: &mut dyn Decoder, bytes: &[u8]) -> Vec<Decoded> {
    let mut out = Vec::new();
    decoder.feed(bytes, 0, &mut out);
    decoder.finish(0, &mut out);
    out
}

fn chunked(decoder: &mut dyn Decoder, bytes: &[u8], cuts: &[usize]) -> Vec<Decoded> {
    let mut out = Vec::new();
    let mut rest = bytes;
    let mut sizes = cuts.iter().cycle();
    while !rest.is_empty() {
        let size = sizes.next().copied().unwrap_or(1).clamp(1, rest.len());
        let (chunk, tail) = rest.split_at(size);
        decoder.feed(chunk, 0, &mut out);
        rest = tail;
    }
    decoder.finish(0, &mut out);
    out
}

/// The board a stream of reports ends on: the first whole board, then each change applied.
fn last_board(decoded: &[Decoded]) -> Option<Board> {
    let mut board = None;
    for event in decoded.iter().flatten() {
        match (&event.event, &mut board) {
            (SensorEvent::Pieces(b), _) => board = Some(b.clone()),
            (SensorEvent::SquareChanged { square, piece }, Some(b)) => match piece {
                Some(p) => b.set_piece_at(*square, *p),
                None => {
                    b.discard_piece_at(*square);
                }
            },
            _ => {}
        }
    }
    board
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn millennium_any_bytes_any_chunks(
        bytes in prop_oneof![prop::collection::vec(any::<u8>(), 0..2000), millennium_bytes()],
        cuts in prop::collection::vec(1usize..80, 1..8),
    ) {
        let whole = one_shot(&mut MillenniumDecoder::new(), &bytes);
        prop_assert_eq!(&chunked(&mut MillenniumDecoder::new(), &bytes, &cuts), &whole);
        prop_assert!(whole.len() <= 2 * bytes.len() + 2);
    }

    #[test]
    fn millennium_statuses_survive_noise_between_them(
        boards in prop::collection::vec(board(), 1..6),
        noise in prop::collection::vec(prop::collection::vec(0u8..0x80, 0..6), 6),
    ) {
        // Noise that holds no reply letter, so it cannot start a message of its own.
        let mut bytes = Vec::new();
        for (board, noise) in boards.iter().zip(&noise) {
            bytes.extend(noise.iter().filter(|c| !b"svwrlx".contains(c)));
            bytes.extend(millennium::encode_status(board));
        }
        let out = one_shot(&mut MillenniumDecoder::new(), &bytes);
        prop_assert_eq!(last_board(&out), boards.last().cloned());
    }

    #[test]
    fn certabo_any_bytes_any_chunks(
        bytes in prop_oneof![prop::collection::vec(any::<u8>(), 0..3000), certabo_bytes()],
        cuts in prop::collection::vec(1usize..200, 1..8),
        calibrated in any::<bool>(),
    ) {
        let calibration = calibrated.then(|| {
            Calibration::from_start_position(&ChipBoard::new(&Board::new()).codes()).unwrap()
        });
        let whole = one_shot(&mut CertaboDecoder::new(calibration.clone()), &bytes);
        let again = chunked(&mut CertaboDecoder::new(calibration), &bytes, &cuts);
        prop_assert_eq!(&again, &whole);
        let lines = bytes.iter().filter(|&&b| b == b'\n').count() + 1;
        prop_assert!(whole.len() <= lines * 64);
    }

    #[test]
    fn certabo_boards_of_the_set_read_back_after_calibration(
        boards in prop::collection::vec(board(), 1..5),
    ) {
        // The start position twice teaches the chips; every later board (chips of the same
        // set where it has them) is read once two lines agree.
        let mut bytes = Vec::new();
        let start = certabo::encode_line(&ChipBoard::new(&Board::new()).codes());
        bytes.extend(start.repeat(2));
        let mut expected = Board::new();
        let mut decoder = CertaboDecoder::new(None);
        let mut out = Vec::new();
        decoder.feed(&bytes, 0, &mut out);
        let calibration = decoder.calibration().cloned().unwrap();
        for board in &boards {
            let codes = ChipBoard::new(board).codes();
            // A board with a spare chip (more pieces of a kind than a set has) is not read.
            if codes.iter().all(|c| *c == certabo::EMPTY || calibration.piece(c).is_some()) {
                expected = board.clone();
            }
            decoder.feed(&certabo::encode_line(&codes).repeat(2), 0, &mut out);
        }
        prop_assert_eq!(last_board(&out), Some(expected));
    }
}
