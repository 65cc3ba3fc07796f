package io.xmit.deploy;

import io.xmit.deploy.cluster.NodeBooksFile;
import io.xmit.deploy.cluster.NodeBooksFile.Books;
import io.xmit.deploy.cluster.NodeBooksFile.EdgeView;
import io.xmit.deploy.cluster.data.AppDataPlane.AppBooks;
import io.xmit.deploy.cluster.data.EdgeDataPlane.NodeBooks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * {@code xmit stat --cluster}: the books of every cluster node running on this machine, as their books files have
 * them ({@link NodeBooksFile}), per cluster: each node and its own sockets' books, each edge pipeline's books of its
 * app nodes (also those on other machines), and the identities the books satisfy (docs/cluster.md, "Books"). Each
 * file is as of its own {@code written} time, so identities across files are exact only when the traffic is quiet.
 */
final class NodeBooksView
{
    private NodeBooksView()
    {
    }

    /**
     * The books files of the live nodes in {@code dir}, by cluster and node name; a file deleted while being read
     * (its node stopped) is left out.
     *
     * @throws IllegalStateException if a file is damaged or unreadable, naming it.
     */
    static List<Books> read(final Path dir)
    {
        final List<Books> books = new ArrayList<>();
        for (final Path file : NodeBooksFile.list(dir))
        {
            try
            {
                books.add(NodeBooksFile.read(file));
            }
            catch (final IllegalStateException ex)
            {
                if (Files.exists(file))
                {
                    throw ex;
                }
            }
        }
        books.sort((a, b) -> a.identity().cluster().equals(b.identity().cluster()) ?
            a.identity().node().compareTo(b.identity().node()) :
            a.identity().cluster().compareTo(b.identity().cluster()));
        return books;
    }

    /** The tables and the identities, each cluster under its name, reflowed to {@code width}. */
    static String text(final List<Books> nodes, final int width)
    {
        final List<String> lines = new ArrayList<>();
        for (final Map.Entry<String, List<Books>> cluster : byCluster(nodes).entrySet())
        {
            final List<Books> members = cluster.getValue();
            lines.add("cluster " + cluster.getKey() + "  " + members.size() + " " +
                (1 == members.size() ? "node" : "nodes") + " on this machine, totals as each last wrote them");
            final List<List<String>> rows = new ArrayList<>();
            rows.add(List.of("node", "roles", "pid", "incarnation", "written", "sockets", "received", "sent",
                "back_pressured", "refused", "malformed", "handler_failed"));
            for (final Books node : members)
            {
                final List<String> row = new ArrayList<>(List.of(node.identity().node(),
                    String.join(",", node.identity().roles()), Long.toString(node.pid()),
                    Long.toString(node.identity().incarnation()), node.written().toString()));
                final Optional<AppBooks> app = node.app();
                row.addAll(app.isEmpty() ? List.of("-", "-", "-", "-", "-", "-", "-") : List.of(
                    number(app.get().sockets()), number(app.get().received()), number(app.get().sent()),
                    number(app.get().backPressured()), number(app.get().refused()), number(app.get().malformed()),
                    number(app.get().handlerFailed())));
                rows.add(row);
            }
            lines.addAll(Table.blocks(rows, width));
            for (final Books node : members)
            {
                for (final EdgeView edge : node.edges())
                {
                    lines.add("edge " + node.identity().node() + " device " + edge.device() + ": its app nodes");
                    final List<List<String>> edgeRows = new ArrayList<>();
                    edgeRows.add(List.of("app node", "incarnation", "live", "sockets", "steered", "published",
                        "received", "unconfirmed", "rx_node_down", "relayed", "rejected", "refused", "tx_node_down",
                        "tx_stale", "relay_bp"));
                    for (final NodeBooks books : edge.nodes())
                    {
                        edgeRows.add(List.of(node.identity().nameOf(books.node()), Long.toString(books.incarnation()),
                            books.live() ? "yes" : "no", number(books.sockets()), number(books.steered()),
                            number(books.published()), number(books.received()), number(books.unconfirmed()),
                            number(books.rxNodeDown()), number(books.relayed()), number(books.rejected()),
                            number(books.refused()), number(books.txNodeDown()),
                            number(books.txStaleIncarnation()), number(books.relayBackPressured())));
                    }
                    lines.addAll(Table.blocks(edgeRows, width));
                }
            }
            lines.addAll(Table.wrap("books (each node's as of its file; across nodes exact when the traffic is " +
                "quiet):", width, "  "));
            for (final String identity : identities(members))
            {
                Table.wrap(identity, width - 2, "  ").forEach(line -> lines.add("  " + line));
            }
        }
        return String.join(System.lineSeparator(), lines) + System.lineSeparator();
    }

    /** One JSON object: every cluster, its nodes with their books, and the identities. */
    static String json(final String time, final List<Books> nodes)
    {
        final Json json = new Json().object().field("time", time).array("clusters");
        for (final Map.Entry<String, List<Books>> cluster : byCluster(nodes).entrySet())
        {
            json.object().field("cluster", cluster.getKey()).array("nodes");
            for (final Books node : cluster.getValue())
            {
                json.object().field("node", node.identity().node()).array("roles");
                node.identity().roles().forEach(json::value);
                json.endArray().field("pid", node.pid()).field("address", node.identity().address())
                    .field("incarnation", node.identity().incarnation()).field("written", node.written().toString());
                node.app().ifPresent(app -> json.object("app").field("sockets", app.sockets())
                    .field("received", app.received()).field("sent", app.sent())
                    .field("back_pressured", app.backPressured()).field("refused", app.refused())
                    .field("malformed", app.malformed()).field("handler_failed", app.handlerFailed()).endObject());
                json.array("edges");
                for (final EdgeView edge : node.edges())
                {
                    json.object().field("device", edge.device()).array("app_nodes");
                    for (final NodeBooks books : edge.nodes())
                    {
                        json.object().field("node", node.identity().nameOf(books.node()))
                            .field("address", books.node()).field("incarnation", books.incarnation())
                            .field("live", books.live()).field("sockets", books.sockets())
                            .field("steered", books.steered()).field("published", books.published())
                            .field("received", books.received()).field("unconfirmed", books.unconfirmed())
                            .field("rx_node_down", books.rxNodeDown())
                            .field("relayed", books.relayed()).field("rejected", books.rejected())
                            .field("refused", books.refused()).field("tx_node_down", books.txNodeDown())
                            .field("tx_stale_incarnation", books.txStaleIncarnation())
                            .field("relay_back_pressured", books.relayBackPressured()).endObject();
                    }
                    json.endArray().endObject();
                }
                json.endArray().endObject();
            }
            json.endArray().array("books");
            identities(cluster.getValue()).forEach(json::value);
            json.endArray().endObject();
        }
        return json.endArray().endObject().toString();
    }

    /**
     * The identities of one cluster's books, a line each. Per app node in an edge's books: {@code published =
     * received + unconfirmed + rx_node_down + in flight}, in flight 0 once the node is gone (left or removed); per
     * edge pipeline the same summed. Where the app node's own file is here too (same address and incarnation): what
     * its sockets received is at least what the edge has its receipts for and at most what the edge published;
     * {@code sent = relayed + rejected + refused + tx_node_down + tx_stale + in flight}. An identity that cannot
     * hold says so.
     */
    static List<String> identities(final List<Books> members)
    {
        final List<String> lines = new ArrayList<>();
        for (final Books edgeNode : members)
        {
            for (final EdgeView edge : edgeNode.edges())
            {
                final String on = " (books of edge " + edgeNode.identity().node() + " device " + edge.device() + ")";
                long published = 0;
                long received = 0;
                long unconfirmed = 0;
                long nodeDown = 0;
                boolean liveNodes = false;
                for (final NodeBooks books : edge.nodes())
                {
                    published += books.published();
                    received += books.received();
                    unconfirmed += books.unconfirmed();
                    nodeDown += books.rxNodeDown();
                    liveNodes |= books.live();
                    final String name = edgeNode.identity().nameOf(books.node());
                    lines.add(name + " incarnation " + books.incarnation() + on + ": rx published " +
                        books.published() + " = received " + books.received() + " + unconfirmed " +
                        books.unconfirmed() + " + rx_node_down " + books.rxNodeDown() + " + in flight " +
                        inFlight(books.published() - books.received() - books.unconfirmed() - books.rxNodeDown(),
                            books.live()));
                    final Books app = own(members, books);
                    if (null != app && app.app().isPresent())
                    {
                        lines.add(name + " own books: rx received " + app.app().get().received() +
                            between(books.received(), app.app().get().received(), books.published()) +
                            "; tx sent " + app.app().get().sent() + " = relayed " + books.relayed() + " + rejected " +
                            books.rejected() + " + refused " + books.refused() + " + tx_node_down " +
                            books.txNodeDown() + " + tx_stale " + books.txStaleIncarnation() + " + in flight " +
                            inFlight(app.app().get().sent() - books.relayed() - books.rejected() - books.refused() -
                                books.txNodeDown() - books.txStaleIncarnation(), true));
                    }
                }
                lines.add("all app nodes" + on + ": rx published " + published + " = received " + received +
                    " + unconfirmed " + unconfirmed + " + rx_node_down " + nodeDown + " + in flight " +
                    inFlight(published - received - unconfirmed - nodeDown, liveNodes));
            }
        }
        return lines;
    }

    /** The file of the node the edge's {@code books} are of, if it runs here as that incarnation. */
    private static Books own(final List<Books> members, final NodeBooks books)
    {
        for (final Books node : members)
        {
            if (node.identity().address().equals(books.node()) &&
                node.identity().incarnation() == books.incarnation())
            {
                return node;
            }
        }
        return null;
    }

    /** In flight: never negative, and none left once a node is gone. */
    private static String inFlight(final long count, final boolean live)
    {
        return count < 0 || (!live && count != 0) ? count + ": does not balance" : Long.toString(count);
    }

    private static String between(final long confirmed, final long received, final long published)
    {
        return received < confirmed || received > published ?
            ": not within the edge's receipts " + confirmed + " and its published " + published :
            ", within the edge's receipts " + confirmed + " and its published " + published;
    }

    private static Map<String, List<Books>> byCluster(final List<Books> nodes)
    {
        final Map<String, List<Books>> clusters = new LinkedHashMap<>();
        for (final Books node : nodes)
        {
            clusters.computeIfAbsent(node.identity().cluster(), name -> new ArrayList<>()).add(node);
        }
        return clusters;
    }

    private static String number(final long value)
    {
        return String.format(Locale.ROOT, "%,d", value);
    }
}
