package lake.security;

import lake.config.access.AuthToken;
import lake.config.AuthTokens;
import lake.config.access.CatalogGrant;
import lake.config.access.CatalogGrant.Privilege;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The grant rules over catalog objects ({@link CatalogAccess}, {@link Authorizer#catalogRefusal}), as pure functions. */
class CatalogAccessTest {
    static AuthToken principal(AuthToken.Access access, List<String> namespaces, CatalogGrant... grants) {
        return new AuthToken("p", AuthTokens.sha256("token-0123456789abcdef"), access, null, namespaces, null,
                grants.length == 0 ? null : List.of(grants));
    }

    static final AuthToken TEAM = principal(AuthToken.Access.READ_WRITE, null,
            new CatalogGrant("team", null, EnumSet.of(Privilege.READ, Privilege.WRITE)),
            new CatalogGrant("shared.dims", "colors", Set.of(Privilege.READ)));

    @Test
    void aNamespaceGrantCoversItsChildrenAndEverythingInThem() {
        CatalogAccess a = CatalogAccess.of(TEAM);
        assertThat(a.onNamespace("team")).containsExactlyInAnyOrder(Privilege.READ, Privilege.WRITE);
        assertThat(a.onNamespace("team.sub.deeper")).containsExactlyInAnyOrder(Privilege.READ, Privilege.WRITE);
        assertThat(a.on("team.sub", "t")).containsExactlyInAnyOrder(Privilege.READ, Privilege.WRITE);
        assertThat(a.onNamespace("teammates")).as("a name that merely starts alike is another namespace").isEmpty();
        assertThat(a.seesNamespace("teammates")).isFalse();
    }

    @Test
    void anObjectGrantShowsItsNamespacesButNotTheirOtherObjects() {
        CatalogAccess a = CatalogAccess.of(TEAM);
        assertThat(a.on("shared.dims", "colors")).containsExactly(Privilege.READ);
        assertThat(a.sees("shared.dims", "sizes")).isFalse();
        assertThat(a.seesNamespace("shared.dims")).isTrue();
        assertThat(a.seesNamespace("shared")).as("an ancestor of something granted").isTrue();
        assertThat(a.readsAllIn("shared.dims")).as("its listing is filtered").isFalse();
        assertThat(a.reads("shared.dims", "colors")).isTrue();
        assertThat(a.seesNamespace("shared.other")).isFalse();
    }

    @Test
    void namespacesListedInTheEntryCoverExactlyThoseNamespaces() {
        CatalogAccess a = CatalogAccess.of(principal(AuthToken.Access.READ_WRITE, List.of("team")));
        assertThat(a.onNamespace("team")).isNotEmpty();
        assertThat(a.onNamespace("team.x")).as("as before grants existed: a '.' in a catalog name is no level").isEmpty();
        assertThat(a.seesNamespace("team.x")).isFalse();
        AuthToken creator = principal(AuthToken.Access.READ_WRITE, null, new CatalogGrant("landing", null, Set.of(Privilege.CREATE)));
        assertThat(CatalogAccess.of(creator).reads("landing", "theirs")).as("create alone reads nothing").isFalse();
        assertThat(CatalogAccess.of(creator).sees("landing", "theirs")).isTrue();
    }

    @Test
    void namespacesListedInTheEntryImplyTheRolesPrivileges() {
        assertThat(CatalogAccess.of(principal(AuthToken.Access.READ_WRITE, List.of("ns"))).on("ns", "t"))
                .containsExactlyInAnyOrder(Privilege.READ, Privilege.WRITE, Privilege.CREATE, Privilege.DROP);
        assertThat(CatalogAccess.of(principal(AuthToken.Access.READ, List.of("ns"))).on("ns", "t")).containsExactly(Privilege.READ);
        assertThat(CatalogAccess.of(principal(AuthToken.Access.READ_WRITE, null)).unrestricted()).isTrue();
        assertThat(CatalogAccess.of(null).unrestricted()).isTrue();
    }

    @Test
    void aReadPrincipalCannotHoldAWritePrivilege() {
        assertThatThrownBy(() -> principal(AuthToken.Access.READ, null, new CatalogGrant("ns", null, Set.of(Privilege.WRITE))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("only \"read\"");
        assertThatThrownBy(() -> new CatalogGrant("ns", null, Set.of())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void hiddenObjectsAreRefusedAsAbsentVisibleOnesAsForbidden() {
        CatalogAccess a = CatalogAccess.of(TEAM);
        assertThat(Authorizer.catalogRefusal(TEAM, a, "team", "t", Privilege.WRITE)).isEmpty();
        assertThat(Authorizer.catalogRefusal(TEAM, a, "other", "t", Privilege.READ)).hasValueSatisfying(r -> assertThat(r.hidden()).isTrue());
        assertThat(Authorizer.catalogRefusal(TEAM, a, "shared.dims", "sizes", Privilege.READ))
                .hasValueSatisfying(r -> assertThat(r.hidden()).isTrue());
        assertThat(Authorizer.catalogRefusal(TEAM, a, "shared.dims", "colors", Privilege.WRITE)).hasValueSatisfying(r -> {
            assertThat(r.hidden()).isFalse();
            assertThat(r.reason()).contains("holds [read]").contains("\"write\"");
        });
        assertThat(Authorizer.catalogRefusal(TEAM, a, "team", null, Privilege.CREATE)).hasValueSatisfying(r -> assertThat(r.hidden()).isFalse());
        assertThat(Authorizer.catalogRefusal(TEAM, a, "shared", null, null)).as("seeing a namespace above a grant").isEmpty();
        AuthToken reader = principal(AuthToken.Access.READ, null);
        assertThat(Authorizer.catalogRefusal(reader, CatalogAccess.of(reader), "any", "t", Privilege.WRITE))
                .as("an unrestricted read-only principal sees all and writes nothing").hasValueSatisfying(r -> assertThat(r.hidden()).isFalse());
        assertThat(Authorizer.catalogRefusal(null, CatalogAccess.ALL, "any", "t", Privilege.DROP)).isEmpty();
    }

    @Test
    void namespacesAreCreatedAndDroppedByAdminsOrByGrantOnTheParent() {
        AuthToken creator = principal(AuthToken.Access.READ_WRITE, null, new CatalogGrant("team", null, Set.of(Privilege.CREATE)));
        CatalogAccess a = CatalogAccess.of(creator);
        assertThat(Authorizer.namespaceChangeRefusal(creator, a, "team.sub", Privilege.CREATE)).isEmpty();
        assertThat(Authorizer.namespaceChangeRefusal(creator, a, "team.sub", Privilege.DROP)).hasValueSatisfying(r -> assertThat(r.hidden()).isFalse());
        assertThat(Authorizer.namespaceChangeRefusal(creator, a, "team", Privilege.DROP)).as("top level needs admin")
                .hasValueSatisfying(r -> assertThat(r.reason()).contains("admin"));
        assertThat(Authorizer.namespaceChangeRefusal(creator, a, "other", Privilege.DROP)).hasValueSatisfying(r -> assertThat(r.hidden()).isTrue());
        AuthToken unrestricted = principal(AuthToken.Access.READ_WRITE, null);
        assertThat(Authorizer.namespaceChangeRefusal(unrestricted, CatalogAccess.of(unrestricted), "a.b", Privilege.CREATE))
                .as("without grants, as on the catalog API: admin only").isPresent();
        AuthToken admin = new AuthToken("root", AuthTokens.sha256("token-0123456789abcdef"), AuthToken.Access.ADMIN, null, null);
        assertThat(Authorizer.namespaceChangeRefusal(admin, CatalogAccess.of(admin), "top", Privilege.DROP)).isEmpty();
    }
}
