// What serves the methods after hello. The core owns the wire (framing, envelopes, hello, the
// hello-first rule, unknown methods); a Dispatcher owns everything a method does: its params,
// the approval gate, the OS work, the action log. The executable supplies one (today a stub
// that says plainly what is not implemented yet).
import Foundation

public protocol Dispatcher: AnyObject {
    /// Serves one request whose method is in METHOD_NAMES (never "hello"), on a connection that
    /// has said hello. Called on a background queue; may take as long as it needs (an approval
    /// dialog waits up to 60 s). Must call `reply` exactly once, from any thread.
    func call(_ request: Request, session: Session, reply: @escaping (Result<JSONValue, HelperError>) -> Void)
}
