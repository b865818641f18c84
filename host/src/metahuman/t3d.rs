//! Unreal's T3D text export: `Begin Object ... End Object` blocks of
//! `Key=Value` property lines whose values nest in parentheses.
//!
//! A tokenizer and a recursive-descent parser turn the text into a tree of
//! [`Object`]s and [`Value`]s; every node keeps its [`Pos`] so that errors,
//! the parser's and the callers', name a line and a column.

use std::fmt;

/// A place in the text: 1-based line and column (in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos {
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1.
    pub column: usize,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

/// Text that is not T3D: where and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// Where the parser stopped.
    pub pos: Pos,
    /// What it expected or found.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.pos, self.message)
    }
}

impl std::error::Error for ParseError {}

/// A `Begin Object ... End Object` block.
#[derive(Clone, Debug, PartialEq)]
pub struct Object {
    /// Where `Begin` stands.
    pub pos: Pos,
    /// The `Key=Value` pairs on the `Begin Object` line (`Class=`, `Name=`).
    pub attributes: Vec<Property>,
    /// The property lines, in file order.
    pub properties: Vec<Property>,
    /// Nested objects, in file order.
    pub children: Vec<Object>,
}

impl Object {
    /// The first property named `name` (Unreal names ignore ASCII case).
    pub fn property(&self, name: &str) -> Option<&Value> {
        find(&self.properties, name)
    }

    /// The first `Begin Object` attribute named `name`.
    pub fn attribute(&self, name: &str) -> Option<&Value> {
        find(&self.attributes, name)
    }

    /// This object and every nested one, depth first.
    pub fn walk(&self) -> Vec<&Object> {
        let mut all = vec![self];
        for child in &self.children {
            all.extend(child.walk());
        }
        all
    }
}

fn find<'a>(properties: &'a [Property], name: &str) -> Option<&'a Value> {
    properties
        .iter()
        .find(|p| p.name.eq_ignore_ascii_case(name))
        .map(|p| &p.value)
}

/// `Name=Value`.
#[derive(Clone, Debug, PartialEq)]
pub struct Property {
    /// The key.
    pub name: String,
    /// The value.
    pub value: Value,
}

/// A value and where it starts.
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    /// Where the value starts.
    pub pos: Pos,
    /// What it is.
    pub kind: ValueKind,
}

/// The kinds of value T3D writes.
#[derive(Clone, Debug, PartialEq)]
pub enum ValueKind {
    /// A number such as `-0.031405` or `4`.
    Number(f64),
    /// A double-quoted string, unescaped.
    Text(String),
    /// A bare word: `True`, `None`, `/Script/Engine.PoseAsset`.
    Word(String),
    /// An object reference `Class'"/Game/Path.Name"'`.
    Reference {
        /// The class before the quote.
        class: String,
        /// The path inside the quotes.
        path: String,
    },
    /// A parenthesised group: a struct `(X=1,Y=2)`, a list `(1,2)` or a mix.
    Group(Vec<Item>),
}

/// One entry of a group: keyed (`X=1`) or positional (`1`).
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    /// The key, when the entry is `Key=Value`.
    pub key: Option<String>,
    /// The value.
    pub value: Value,
}

impl Value {
    /// The entries of a group, or `None` for any other value.
    pub fn items(&self) -> Option<&[Item]> {
        match &self.kind {
            ValueKind::Group(items) => Some(items),
            _ => None,
        }
    }

    /// The value of the first `key=` entry of a group (ignoring ASCII case).
    pub fn field(&self, key: &str) -> Option<&Value> {
        self.items()?
            .iter()
            .find(|i| {
                i.key
                    .as_deref()
                    .is_some_and(|k| k.eq_ignore_ascii_case(key))
            })
            .map(|i| &i.value)
    }

    /// The number, if this is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self.kind {
            ValueKind::Number(n) => Some(n),
            _ => None,
        }
    }

    /// The text of a quoted string or a bare word.
    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            ValueKind::Text(s) | ValueKind::Word(s) => Some(s),
            _ => None,
        }
    }

    /// `True` or `False` (any case).
    pub fn as_bool(&self) -> Option<bool> {
        match &self.kind {
            ValueKind::Word(w) if w.eq_ignore_ascii_case("true") => Some(true),
            ValueKind::Word(w) if w.eq_ignore_ascii_case("false") => Some(false),
            _ => None,
        }
    }

    /// A short name of the kind, for error messages.
    pub fn describe(&self) -> &'static str {
        match self.kind {
            ValueKind::Number(_) => "a number",
            ValueKind::Text(_) => "a string",
            ValueKind::Word(_) => "a word",
            ValueKind::Reference { .. } => "an object reference",
            ValueKind::Group(_) => "a group",
        }
    }
}

/// Parses a whole T3D file into its top-level objects.
pub fn parse(text: &str) -> Result<Vec<Object>, ParseError> {
    let mut parser = Parser {
        lexer: Lexer::new(text),
        peeked: None,
        depth: 0,
    };
    let mut objects = Vec::new();
    loop {
        let token = parser.next()?;
        match token.tok {
            Tok::Newline => {}
            Tok::Eof => return Ok(objects),
            Tok::Word(ref w) if w.eq_ignore_ascii_case("Begin") => {
                objects.push(parser.object(token.pos)?);
            }
            _ => return Err(unexpected(&token, "`Begin Object`")),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Word(String),
    Text(String),
    Quoted(String),
    Open,
    Close,
    Comma,
    Equals,
    Newline,
    Eof,
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    pos: Pos,
}

fn unexpected(token: &Token, expected: &str) -> ParseError {
    let found = match &token.tok {
        Tok::Word(w) => format!("`{w}`"),
        Tok::Text(_) => "a string".to_string(),
        Tok::Quoted(_) => "a '-quoted reference".to_string(),
        Tok::Open => "`(`".to_string(),
        Tok::Close => "`)`".to_string(),
        Tok::Comma => "`,`".to_string(),
        Tok::Equals => "`=`".to_string(),
        Tok::Newline => "the end of the line".to_string(),
        Tok::Eof => "the end of the file".to_string(),
    };
    ParseError {
        pos: token.pos,
        message: format!("expected {expected}, found {found}"),
    }
}

struct Lexer<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line: usize,
    column: usize,
}

impl<'a> Lexer<'a> {
    fn new(text: &'a str) -> Self {
        Lexer {
            chars: text.chars().peekable(),
            line: 1,
            column: 1,
        }
    }

    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            column: self.column,
        }
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn token(&mut self) -> Result<Token, ParseError> {
        while let Some(&c) = self.chars.peek() {
            if c == '\n' || !c.is_whitespace() {
                break;
            }
            self.bump();
        }
        let pos = self.pos();
        let Some(c) = self.bump() else {
            return Ok(Token { tok: Tok::Eof, pos });
        };
        let tok = match c {
            '\n' => Tok::Newline,
            '(' => Tok::Open,
            ')' => Tok::Close,
            ',' => Tok::Comma,
            '=' => Tok::Equals,
            '"' => Tok::Text(self.text(pos)?),
            '\'' => Tok::Quoted(self.quoted(pos)?),
            c => {
                let mut word = String::from(c);
                while let Some(&c) = self.chars.peek() {
                    if c.is_whitespace() || "()=,\"'".contains(c) {
                        break;
                    }
                    word.push(c);
                    self.bump();
                }
                Tok::Word(word)
            }
        };
        Ok(Token { tok, pos })
    }

    /// The rest of a `"` string, with `\"`, `\\`, `\n` and `\t` unescaped.
    fn text(&mut self, start: Pos) -> Result<String, ParseError> {
        let mut text = String::new();
        loop {
            match self.bump() {
                Some('"') => return Ok(text),
                Some('\\') => match self.bump() {
                    Some('n') => text.push('\n'),
                    Some('t') => text.push('\t'),
                    Some(c) if c != '\n' => text.push(c),
                    _ => return Err(unclosed(start, "string")),
                },
                Some('\n') | None => return Err(unclosed(start, "string")),
                Some(c) => text.push(c),
            }
        }
    }

    /// The rest of a `'` reference body (which holds a `"` path).
    fn quoted(&mut self, start: Pos) -> Result<String, ParseError> {
        let mut text = String::new();
        loop {
            match self.bump() {
                Some('\'') => return Ok(text),
                Some('\n') | None => return Err(unclosed(start, "'-quoted reference")),
                Some(c) => text.push(c),
            }
        }
    }
}

fn unclosed(start: Pos, what: &str) -> ParseError {
    ParseError {
        pos: start,
        message: format!("{what} opened here is not closed on its line"),
    }
}

/// Deepest nesting of groups and objects accepted (Unreal's PoseAsset uses 5).
const MAX_DEPTH: usize = 64;

struct Parser<'a> {
    lexer: Lexer<'a>,
    peeked: Option<Token>,
    depth: usize,
}

impl Parser<'_> {
    fn next(&mut self) -> Result<Token, ParseError> {
        match self.peeked.take() {
            Some(t) => Ok(t),
            None => self.lexer.token(),
        }
    }

    fn peek(&mut self) -> Result<&Token, ParseError> {
        if self.peeked.is_none() {
            self.peeked = Some(self.lexer.token()?);
        }
        Ok(self.peeked.as_ref().expect("just filled"))
    }

    fn keyword(&mut self, word: &str) -> Result<(), ParseError> {
        let token = self.next()?;
        match &token.tok {
            Tok::Word(w) if w.eq_ignore_ascii_case(word) => Ok(()),
            _ => Err(unexpected(&token, &format!("`{word}`"))),
        }
    }

    fn enter(&mut self, pos: Pos) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ParseError {
                pos,
                message: format!("nested deeper than {MAX_DEPTH} levels"),
            });
        }
        Ok(())
    }

    /// `Begin` was read: `Object attr* NL (object | property NL | NL)* End Object`.
    fn object(&mut self, pos: Pos) -> Result<Object, ParseError> {
        self.enter(pos)?;
        let object = self.object_body(pos);
        self.depth -= 1;
        object
    }

    fn object_body(&mut self, pos: Pos) -> Result<Object, ParseError> {
        self.keyword("Object")?;
        let mut object = Object {
            pos,
            attributes: Vec::new(),
            properties: Vec::new(),
            children: Vec::new(),
        };
        loop {
            let token = self.next()?;
            match token.tok {
                Tok::Newline => break,
                Tok::Word(name) => object.attributes.push(self.property(name)?),
                _ => return Err(unexpected(&token, "an attribute or the end of the line")),
            }
        }
        loop {
            let token = self.next()?;
            match token.tok {
                Tok::Newline => {}
                Tok::Word(ref w) if w.eq_ignore_ascii_case("End") => {
                    self.keyword("Object")?;
                    return Ok(object);
                }
                Tok::Word(ref w) if w.eq_ignore_ascii_case("Begin") => {
                    object.children.push(self.object(token.pos)?);
                }
                Tok::Word(name) => {
                    object.properties.push(self.property(name)?);
                    let end = self.next()?;
                    if !matches!(end.tok, Tok::Newline | Tok::Eof) {
                        return Err(unexpected(&end, "the end of the line"));
                    }
                    if end.tok == Tok::Eof {
                        return Err(unexpected(&end, "`End Object`"));
                    }
                }
                _ => {
                    return Err(unexpected(
                        &token,
                        "a property, `Begin Object` or `End Object`",
                    ))
                }
            }
        }
    }

    /// The name was read: `= value`.
    fn property(&mut self, name: String) -> Result<Property, ParseError> {
        let token = self.next()?;
        if token.tok != Tok::Equals {
            return Err(unexpected(&token, &format!("`=` after `{name}`")));
        }
        Ok(Property {
            name,
            value: self.value()?,
        })
    }

    fn value(&mut self) -> Result<Value, ParseError> {
        let token = self.next()?;
        let pos = token.pos;
        let kind = match token.tok {
            Tok::Text(text) => ValueKind::Text(text),
            Tok::Open => ValueKind::Group(self.group(pos)?),
            Tok::Word(word) => {
                if let Tok::Quoted(_) = self.peek()?.tok {
                    let Tok::Quoted(inner) = self.next()?.tok else {
                        unreachable!("peeked a quoted token")
                    };
                    let path = inner
                        .strip_prefix('"')
                        .and_then(|p| p.strip_suffix('"'))
                        .unwrap_or(&inner)
                        .to_string();
                    ValueKind::Reference { class: word, path }
                } else {
                    number(&word).map_or(ValueKind::Word(word), ValueKind::Number)
                }
            }
            _ => return Err(unexpected(&token, "a value")),
        };
        Ok(Value { pos, kind })
    }

    /// `(` was read at `open`: `)` or `item (, item)* )`, line breaks allowed inside.
    fn group(&mut self, open: Pos) -> Result<Vec<Item>, ParseError> {
        self.enter(open)?;
        let items = self.group_items(open);
        self.depth -= 1;
        items
    }

    fn group_items(&mut self, open: Pos) -> Result<Vec<Item>, ParseError> {
        let mut items = Vec::new();
        self.skip_newlines()?;
        if self.peek()?.tok == Tok::Close {
            self.next()?;
            return Ok(items);
        }
        loop {
            self.skip_newlines()?;
            let value = self.value()?;
            let item = match (&value.kind, &self.peek()?.tok) {
                (ValueKind::Word(key), Tok::Equals) => {
                    let key = key.clone();
                    self.next()?;
                    Item {
                        key: Some(key),
                        value: self.value()?,
                    }
                }
                _ => Item { key: None, value },
            };
            items.push(item);
            self.skip_newlines()?;
            let token = self.next()?;
            match token.tok {
                Tok::Comma => {}
                Tok::Close => return Ok(items),
                Tok::Eof => {
                    return Err(ParseError {
                        pos: open,
                        message: "`(` opened here is never closed".to_string(),
                    })
                }
                _ => return Err(unexpected(&token, "`,` or `)`")),
            }
        }
    }

    fn skip_newlines(&mut self) -> Result<(), ParseError> {
        while self.peek()?.tok == Tok::Newline {
            self.next()?;
        }
        Ok(())
    }
}

/// A bare word that reads as a number: digits with an optional sign, point and exponent.
fn number(word: &str) -> Option<f64> {
    let first = word.chars().next()?;
    if !(first.is_ascii_digit() || first == '-' || first == '+' || first == '.') {
        return None;
    }
    word.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = "Begin Object Class=/Script/Engine.PoseAsset Name=\"pose\"\n   \
        Begin Object Name=\"Inner\"\n   End Object\n   \
        Container=(Names=((DisplayName=\"A\"),(DisplayName=\"B \\\"q\\\"\")),Data=(1.5,-2,0.000001),Empty=())\n   \
        bFlag=True\n   \
        Source=AnimSequence'\"/Game/Anim.Anim\"'\n\
        End Object\n";

    #[test]
    fn parses_nested_groups_strings_numbers_and_references() {
        let objects = parse(SMALL).unwrap();
        assert_eq!(objects.len(), 1);
        let o = &objects[0];
        assert_eq!(
            o.attribute("class").unwrap().as_str(),
            Some("/Script/Engine.PoseAsset")
        );
        assert_eq!(o.attribute("Name").unwrap().as_str(), Some("pose"));
        assert_eq!(o.children.len(), 1);
        let c = o.property("Container").unwrap();
        let names = c.field("Names").unwrap().items().unwrap();
        assert_eq!(names.len(), 2);
        assert_eq!(
            names[1].value.field("DisplayName").unwrap().as_str(),
            Some("B \"q\"")
        );
        let data: Vec<f64> = c
            .field("Data")
            .unwrap()
            .items()
            .unwrap()
            .iter()
            .map(|i| i.value.as_f64().unwrap())
            .collect();
        assert_eq!(data, vec![1.5, -2.0, 0.000001]);
        assert_eq!(c.field("Empty").unwrap().items().unwrap().len(), 0);
        assert_eq!(o.property("bflag").unwrap().as_bool(), Some(true));
        assert_eq!(
            o.property("Source").unwrap().kind,
            ValueKind::Reference {
                class: "AnimSequence".into(),
                path: "/Game/Anim.Anim".into()
            }
        );
        let pos = c.field("Data").unwrap().pos;
        assert_eq!(pos.line, 4);
        assert_eq!(pos.column, 70);
    }

    fn error(text: &str) -> ParseError {
        parse(text).unwrap_err()
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = error("Begin Object Name=\"x\"\n   A=(1,2\n");
        assert_eq!(e.pos, Pos { line: 2, column: 6 });
        assert!(e.message.contains("`(` opened here is never closed"), "{e}");

        let e = error("Begin Object\n  A=(1 2)\nEnd Object\n");
        assert_eq!(e.pos, Pos { line: 2, column: 8 });
        assert!(e.message.contains("expected `,` or `)`, found `2`"), "{e}");

        let e = error("Begin Object\n  A=(1,,2)\nEnd Object\n");
        assert_eq!(e.pos, Pos { line: 2, column: 8 });
        assert!(e.message.contains("expected a value, found `,`"), "{e}");

        let e = error("Begin Object\n  Key=\"open\nEnd Object\n");
        assert_eq!(e.pos, Pos { line: 2, column: 7 });
        assert!(e.message.contains("string opened here"), "{e}");

        let e = error("Begin Object\n  Key 5\n");
        assert_eq!(e.pos, Pos { line: 2, column: 7 });
        assert!(e.message.contains("expected `=` after `Key`"), "{e}");

        let e = error("Begin Object\n  A=1\n");
        assert!(e.message.contains("`End Object`"), "{e}");
        assert_eq!(e.pos.line, 3);

        let e = error("Hello\n");
        assert_eq!(e.pos, Pos { line: 1, column: 1 });
        assert_eq!(
            e.to_string(),
            "line 1, column 1: expected `Begin Object`, found `Hello`"
        );

        let deep = format!("Begin Object\n  A={}\nEnd Object\n", "(".repeat(100_000));
        let e = error(&deep);
        assert_eq!(
            e.pos,
            Pos {
                line: 2,
                column: 4 + MAX_DEPTH
            }
        );
        assert_eq!(e.message, "nested deeper than 64 levels");

        let e = error("Begin Object\n  A=1 B=2\nEnd Object\n");
        assert_eq!(e.pos, Pos { line: 2, column: 7 });
        assert!(e.message.contains("end of the line"), "{e}");
    }

    proptest::proptest! {
        #[test]
        fn never_panics_on_any_text(text in "[ (),=\"'\\\nA-Za-z0-9._/-]{0,200}") {
            let _ = parse(&text);
            let _ = parse(&format!("Begin Object\n A={text}\nEnd Object\n"));
        }
    }

    #[test]
    fn never_panics_on_truncations() {
        for end in 0..SMALL.len() {
            if SMALL.is_char_boundary(end) {
                let _ = parse(&SMALL[..end]);
            }
        }
    }
}
