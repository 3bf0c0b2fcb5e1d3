//! A SOAP document read into a small tree of elements by their local names (namespace
//! prefixes dropped), each with its text (character and entity references resolved), with
//! bounds on depth, elements and text so no answer can exhaust memory or the stack.

use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::Event;
use quick_xml::reader::Reader;

/// The deepest nesting read (a SOAP answer is five or six levels deep).
const MAX_DEPTH: usize = 32;
/// The most elements read from one document.
const MAX_ELEMENTS: usize = 200_000;

/// One element: its local name, its own text, its child elements in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Node {
    pub name: String,
    pub text: String,
    pub children: Vec<Node>,
}

impl Node {
    /// The first child named `name`.
    pub fn child(&self, name: &str) -> Option<&Node> {
        self.children.iter().find(|c| c.name == name)
    }

    /// The first element named `name` at any depth (this one included), breadth first.
    pub fn find(&self, name: &str) -> Option<&Node> {
        if self.name == name {
            return Some(self);
        }
        let mut level: Vec<&Node> = self.children.iter().collect();
        while !level.is_empty() {
            if let Some(found) = level.iter().find(|n| n.name == name) {
                return Some(found);
            }
            level = level.iter().flat_map(|n| n.children.iter()).collect();
        }
        None
    }
}

fn local(name: &str) -> String {
    match name.rsplit_once(':') {
        Some((_, local)) => local.to_owned(),
        None => name.to_owned(),
    }
}

/// Reads `xml` into its root element (a document root holding the top-level elements).
pub fn parse_tree(xml: &str) -> Result<Node, String> {
    let mut reader = Reader::from_str(xml);
    reader.config_mut().check_end_names = true;
    let mut stack: Vec<Node> = vec![Node::default()];
    let mut elements = 0usize;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| format!("at byte {}: {e}", reader.buffer_position()))?;
        match event {
            Event::Start(start) => {
                elements += 1;
                if stack.len() > MAX_DEPTH || elements > MAX_ELEMENTS {
                    return Err("nested too deep or too many elements".to_owned());
                }
                stack.push(Node {
                    name: local(start.name().as_ref()),
                    ..Node::default()
                });
            }
            Event::Empty(empty) => {
                elements += 1;
                if elements > MAX_ELEMENTS {
                    return Err("too many elements".to_owned());
                }
                let node = Node {
                    name: local(empty.name().as_ref()),
                    ..Node::default()
                };
                if let Some(parent) = stack.last_mut() {
                    parent.children.push(node);
                }
            }
            Event::End(_) => {
                if stack.len() < 2 {
                    return Err("an end tag without its start".to_owned());
                }
                let Some(node) = stack.pop() else {
                    return Err("an end tag without its start".to_owned());
                };
                if let Some(parent) = stack.last_mut() {
                    parent.children.push(node);
                }
            }
            Event::Text(text) => {
                if let Some(node) = stack.last_mut() {
                    node.text.push_str(&text.xml10_content());
                }
            }
            Event::CData(data) => {
                if let Some(node) = stack.last_mut() {
                    node.text.push_str(&data.xml10_content());
                }
            }
            Event::GeneralRef(reference) => {
                let resolved = match reference.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string(),
                    Ok(None) => resolve_predefined_entity(&reference)
                        .ok_or_else(|| format!("an unknown entity &{};", &*reference))?
                        .to_owned(),
                    Err(e) => return Err(format!("a bad character reference: {e}")),
                };
                if let Some(node) = stack.last_mut() {
                    node.text.push_str(&resolved);
                }
            }
            Event::Eof => break,
            Event::Decl(_) | Event::PI(_) | Event::DocType(_) | Event::Comment(_) => {}
        }
    }
    if stack.len() != 1 {
        return Err("the document ends inside an element".to_owned());
    }
    Ok(stack.pop().unwrap_or_default())
}
