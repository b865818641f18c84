//! One OSC client (its control session and subscription) and how one
//! message runs through the session to its reply.

use embassy_sync::blocking_mutex::raw::RawMutex;
use embassy_time::{Duration, Instant};
use llv_core::control::{Request, Response, PROTOCOL_VERSION};
use llv_core::osc::Message;

use super::command::{command, unanswered, Command};
use super::reply::{reply, response_reply, ReplyStatus};
use super::subscription::Subscription;
use super::MAX_REPLY;
use crate::door::Control;
use crate::library::TakeLibrary;
use crate::session::{Pending, Playback, Session, Step, Verdict};
use crate::worker::Finish;

/// How a wrong `/llv/connect` token is paid for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PenaltyMode {
    /// The reply waits the source's penalty, then the connection closes
    /// (TCP: the binary protocol's rule).
    Wait,
    /// The reply goes at once, and the source's tokens are refused unread
    /// until its penalty is over (UDP: one guesser must not hold up the
    /// door that every client shares).
    LockOut,
}

/// What handling one message asks of the caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handled {
    /// The reply's length at the start of the output buffer (0: no reply).
    pub reply: usize,
    /// Wait this long before sending the reply (a wrong token, [`PenaltyMode::Wait`]).
    pub wait: Option<Duration>,
    /// End the connection after the reply (a refused `/llv/connect` over TCP).
    pub close: bool,
}

/// One OSC client: its control session (token proved or not, the box's
/// locked state) and its subscription.
pub struct Client {
    pub(super) session: Session,
    /// The client's subscription to the state.
    pub subscription: Subscription,
}

impl Client {
    /// A client of a box running `firmware`.
    pub fn new(firmware: &'static str) -> Self {
        Client {
            session: Session::new(firmware),
            subscription: Subscription::default(),
        }
    }
}

/// Handles one message of `client` from `source`: runs its request through
/// the client's session and writes the reply into `out`.
pub async fn handle_message<M, L, D, W>(
    m: &Message<'_>,
    client: &mut Client,
    source: [u8; 4],
    mode: PenaltyMode,
    control: &Control<'_, M, L, W>,
    device: &mut D,
    out: &mut [u8; MAX_REPLY],
) -> Handled
where
    M: RawMutex,
    L: TakeLibrary,
    W: Finish<M, L>,
    D: Playback<L::Take>,
{
    if unanswered(m.address) {
        return Handled {
            reply: 0,
            wait: None,
            close: false,
        };
    }
    let library = control.library.lock().await;
    // OSC asks for nothing that writes to the library (uploads, deletes and
    // settings are the binary protocol's): what waits is a list's page or a
    // take opened to play.
    // Taken apart in its own statement: matched on across the worker's
    // wait, the result would stay in this future beside what it carries.
    let (connect, pending) = match prepare(m, client, source, mode, control, &*library, device, out)
    {
        Ok(prepared) => prepared,
        Err(handled) => return handled,
    };
    let finish = control
        .finish
        .finish(&mut client.session, pending, library, device);
    let response = finish.await;
    answered(
        m.address, connect, &response, client, source, mode, control, out,
    )
}

/// The part of [`handle_message`] that does not wait: the reply, or (with
/// whether it is a `/llv/connect`) what waits on the library.
#[allow(
    clippy::too_many_arguments,
    reason = "one call site, all of the message's context"
)]
fn prepare<'m, M, L, D, W>(
    m: &Message<'m>,
    client: &mut Client,
    source: [u8; 4],
    mode: PenaltyMode,
    control: &Control<'_, M, L, W>,
    library: &L,
    device: &mut D,
    out: &mut [u8; MAX_REPLY],
) -> Result<(bool, Pending<'m>), Handled>
where
    M: RawMutex,
    L: TakeLibrary,
    W: Finish<M, L>,
    D: Playback<L::Take>,
{
    let mut handled = Handled {
        reply: 0,
        wait: None,
        close: false,
    };
    let command = match command(m) {
        Ok(c) => c,
        Err(why) => {
            handled.reply = reply(out, m.address, ReplyStatus::Error, |j| j.string(why));
            return Err(handled);
        }
    };
    let connect = matches!(command, Command::Request(Request::Hello { .. }));
    if connect && mode == PenaltyMode::LockOut {
        if let Some(left) = control.penalties.lockout(source) {
            handled.reply = reply(out, m.address, ReplyStatus::Denied, |j| {
                j.text(format_args!(
                    "wrong token lately: try again in {} s",
                    left.as_millis().div_ceil(1000)
                ));
            });
            return Err(handled);
        }
    }
    if !connect && !client.session.is_authenticated(library) {
        // No token on the box: no /llv/connect needed.
        let hello = Request::Hello {
            protocol: PROTOCOL_VERSION,
            token: None,
        };
        if let Step::Done(Response::Error { detail, .. }) =
            client.session.start(hello, library, device)
        {
            handled.reply = reply(out, m.address, ReplyStatus::Denied, |j| {
                if detail.as_str() == "this box needs a token" {
                    j.text(format_args!("{detail}: send /llv/connect TOKEN first"));
                } else {
                    j.string(&detail);
                }
            });
            return Err(handled);
        }
    }
    let step = match command {
        Command::Request(request) => client.session.start(request, library, device),
        Command::Subscribe(seconds) => {
            client.subscription.start(Instant::now(), seconds);
            handled.reply = reply(out, m.address, ReplyStatus::Ok, |j| {
                j.open_object();
                j.key("seconds");
                j.uint(u64::from(seconds));
                j.close_object();
            });
            return Err(handled);
        }
    };
    match step {
        Step::Done(response) => Err(answered(
            m.address, connect, &response, client, source, mode, control, out,
        )),
        Step::Wait(pending) => Ok((connect, pending)),
    }
}

/// The reply to `response`, and what a `/llv/connect`'s verdict asks.
#[allow(
    clippy::too_many_arguments,
    reason = "one call site each, all of the message's context"
)]
fn answered<M: RawMutex, L, W>(
    address: &str,
    connect: bool,
    response: &Response,
    client: &Client,
    source: [u8; 4],
    mode: PenaltyMode,
    control: &Control<'_, M, L, W>,
    out: &mut [u8; MAX_REPLY],
) -> Handled {
    let mut handled = Handled {
        reply: 0,
        wait: None,
        close: false,
    };
    if connect {
        match client.session.verdict() {
            Verdict::Continue => {}
            Verdict::Close => handled.close = true,
            Verdict::Penalize => {
                let delay = control.penalties.wrong_token(source);
                if mode == PenaltyMode::Wait {
                    handled.wait = Some(delay);
                    handled.close = true;
                }
            }
        }
    }
    handled.reply = response_reply(out, address, response);
    handled
}
